//! Rigid multibody systems with joints, [P, §4.2] (double spherical pendulum, Eq. 27,
//! Figs. 6-14) and issue 3. Pass criteria (short horizons; the 80 s numbers are in
//! `docs/verification.md`):
//!
//! * planar double pendulum: `|y| < 1e-12`, rod lengths, energy and `Lx`, `Lz` at element
//!   boundaries conserved to the Newton tolerance's order;
//! * off-centre variant: the planar motion is unstable, a 1e-9 out-of-plane velocity grows
//!   by orders of magnitude (the paper's "leaves the plane");
//! * 3D variant: `Lz` and the energy conserved;
//! * convergence of the Petrov–Galerkin form on the double pendulum over 1 s: order `2p`
//!   at the nodes for `p = 1, 2`;
//! * bad joints: a clear message naming the field.

use stmech::io::scenario::{Scenario, ScenarioError};
use stmech::model::ConstrainedSystem;
use stmech::solve::Trajectory;
use stmech::solve::diagnostics::{constraint_violations, element_diagnostics};
use stmech::solve::scheme::{Formulation, Method, SpaceTimeParams, simulate};

fn example(name: &str) -> String {
    let path = format!(
        "{}/../../examples/multibody/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).unwrap()
}

/// The example with another end time and mesh.
fn scenario(name: &str, end: f64, blocks: usize, elements: usize, order: usize) -> Scenario {
    let text = example(name)
        .replace("end = 80.0", &format!("end = {end}"))
        .replace(
            "elements_per_block = 100",
            &format!("elements_per_block = {elements}"),
        )
        .replace("blocks = 40", &format!("blocks = {blocks}"))
        .replace("order = 2", &format!("order = {order}"));
    Scenario::from_toml_str(&text, name).unwrap()
}

fn run(s: &Scenario) -> Trajectory {
    let (q0, v0) = s.system.initial_state();
    simulate(
        &s.system,
        &q0,
        &v0,
        s.t_start,
        s.t_end,
        &s.method,
        &s.newton,
        &mut |_| {},
    )
    .unwrap()
}

fn max_abs(traj: &Trajectory, coord: usize) -> f64 {
    (0..traj.len())
        .map(|k| traj.q_at(k)[coord].abs())
        .fold(0.0, f64::max)
}

/// Spread of `f` over the element boundaries.
fn spread_at_boundaries(traj: &Trajectory, f: impl Fn(usize) -> f64) -> f64 {
    let v: Vec<f64> = (0..traj.len()).step_by(traj.order).map(f).collect();
    v.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        - v.iter().cloned().fold(f64::INFINITY, f64::min)
}

#[test]
fn p_sec4_2_double_pendulum_planar_and_conservative() {
    let s = scenario("01_double_pendulum.toml", 10.0, 5, 100, 2);
    let traj = run(&s);
    let sys = &s.system;
    assert!(
        max_abs(&traj, 1) < 1e-12 && max_abs(&traj, 13) < 1e-12,
        "y must stay at round-off"
    );
    for c in constraint_violations(sys, &traj) {
        assert!(c.max_at_element_boundaries < 1e-10, "{c:?}");
        assert!(c.max_at_block_boundaries < 1e-10, "{c:?}");
    }
    let e = spread_at_boundaries(&traj, |k| {
        sys.kinetic_energy(traj.v_at(k)) + sys.potential_energy(traj.q_at(k))
    });
    assert!(e < 1e-9, "energy drift at element boundaries {e:e}");
    for comp in [0, 2] {
        let l = spread_at_boundaries(&traj, |k| {
            sys.angular_momentum(traj.q_at(k), traj.v_at(k))[comp]
        });
        assert!(l < 1e-10, "L{} drift {l:e}", comp + 1);
    }
    // element means of L (Appendix C): Lx, Lz constant, Ly active (Fig. 10)
    let els = element_diagnostics(sys, &traj);
    let sp = |f: &dyn Fn(usize) -> f64| {
        let v: Vec<f64> = (0..els.len()).map(f).collect();
        v.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
            - v.iter().cloned().fold(f64::INFINITY, f64::min)
    };
    assert!(sp(&|e| els[e].angular_momentum_mean[0]) < 1e-10);
    assert!(sp(&|e| els[e].angular_momentum_mean[2]) < 1e-10);
    assert!(sp(&|e| els[e].angular_momentum_mean[1]) > 1.0);
}

#[test]
fn p_sec4_2_off_centre_variant_leaves_the_plane() {
    // exact symmetry keeps y = 0; the paper's out-of-plane motion is the instability of the
    // planar motion, seeded here by a 1e-9 m/s out-of-plane velocity of the lower body
    let seed = |name: &str| {
        let text = example(name)
            .replace("end = 80.0", "end = 24.0")
            .replace("blocks = 40", "blocks = 12");
        let text = text.replacen(
            "[[bodies]]\nname = \"lower\"",
            "[[bodies]]\nname = \"lower\"\nvelocity = [0.0, 1e-9, 0.0]",
            1,
        );
        let s = Scenario::from_toml_str(&text, name).unwrap();
        max_abs(&run(&s), 13)
    };
    let off = seed("02_double_pendulum_off_centre.toml");
    let centred = seed("01_double_pendulum.toml");
    eprintln!("max |y| of the lower body by t = 24 s: off-centre {off:e}, centred {centred:e}");
    // measured: 1.6e-5 (off-centre) vs 3.7e-7 (centred): the off-centre planar motion is far less stable
    assert!(off > 1e-6, "off-centre y reaches only {off:e}");
    assert!(
        off > 20.0 * centred,
        "off-centre {off:e} vs centred {centred:e}"
    );
}

#[test]
fn p_sec4_2_3d_variant_conserves_lz_and_energy() {
    let s = scenario("03_double_pendulum_3d.toml", 10.0, 5, 100, 2);
    let traj = run(&s);
    let sys = &s.system;
    assert!(max_abs(&traj, 13) > 1.0, "the motion is three-dimensional");
    let lz = spread_at_boundaries(&traj, |k| {
        sys.angular_momentum(traj.q_at(k), traj.v_at(k))[2]
    });
    let e = spread_at_boundaries(&traj, |k| {
        sys.kinetic_energy(traj.v_at(k)) + sys.potential_energy(traj.q_at(k))
    });
    // relative to the problem's own scales (the largest kinetic energy and angular momentum
    // of the run): the stop is relative (docs/theory.md §10)
    let ke = (0..traj.len())
        .map(|k| sys.kinetic_energy(traj.v_at(k)))
        .fold(0.0, f64::max);
    let lmax = (0..traj.len())
        .map(|k| {
            let l = sys.angular_momentum(traj.q_at(k), traj.v_at(k));
            (l[0] * l[0] + l[1] * l[1] + l[2] * l[2]).sqrt()
        })
        .fold(0.0, f64::max);
    eprintln!("Lz drift {lz:e} of |L| {lmax:e}, energy drift {e:e} of max T {ke:e}");
    assert!(
        lz < 1e-10 * lmax && e < 1e-10 * ke,
        "Lz drift {lz:e} of |L| {lmax:e}, energy drift {e:e} of max T {ke:e}"
    );
    for c in constraint_violations(sys, &traj) {
        assert!(c.max_at_element_boundaries < 1e-10, "{c:?}");
    }
}

#[test]
fn four_body_chain_holds_all_joints() {
    let s = Scenario::from_toml_str(&example("04_four_body_chain.toml"), "chain").unwrap();
    let traj = run(&s);
    for c in constraint_violations(&s.system, &traj) {
        assert!(c.max_at_element_boundaries < 1e-9, "{c:?}");
    }
    for b in 0..4 {
        assert!(max_abs(&traj, 12 * b + 1) < 1e-12);
    }
    let sys = &s.system;
    let e = spread_at_boundaries(&traj, |k| {
        sys.kinetic_energy(traj.v_at(k)) + sys.potential_energy(traj.q_at(k))
    });
    // relative to the run's largest kinetic energy: the stop is relative (docs/theory.md §10)
    let ke = (0..traj.len())
        .map(|k| sys.kinetic_energy(traj.v_at(k)))
        .fold(0.0, f64::max);
    assert!(e < 1e-10 * ke, "energy drift {e:e} of max T {ke:e}");
}

/// Error of Eq. (26) summed over both bodies at t = 1 s.
fn final_error(a: &Trajectory, b: &Trajectory) -> f64 {
    let (qa, qb) = (a.q_final(), b.q_final());
    (0..8)
        .map(|t| {
            let i = 3 * t;
            ((qa[i] - qb[i]).powi(2)
                + (qa[i + 1] - qb[i + 1]).powi(2)
                + (qa[i + 2] - qb[i + 2]).powi(2))
            .sqrt()
        })
        .sum()
}

#[test]
fn double_pendulum_converges_with_order_2p_at_nodes() {
    let s = |order, n| {
        let mut s = scenario("01_double_pendulum.toml", 1.0, 1, n, order);
        s.newton.tolerance = 1e-11;
        if let Method::SpaceTime(ref mut p) = s.method {
            assert_eq!(p.formulation, Formulation::PetrovGalerkin);
            *p = SpaceTimeParams {
                elements_per_block: n,
                ..p.clone()
            };
        }
        s
    };
    let reference = run(&s(2, 640));
    for (order, meshes, expected) in [(1, [20, 40, 80], 2.0), (2, [10, 20, 40], 4.0)] {
        let errs: Vec<f64> = meshes
            .iter()
            .map(|&n| final_error(&run(&s(order, n)), &reference))
            .collect();
        for w in errs.windows(2) {
            let rate = (w[0] / w[1]).log2();
            eprintln!("p = {order}: errors {errs:?}, rate {rate:.2}");
            assert!(
                (rate - expected).abs() < 0.3,
                "p = {order}: errors {errs:?}, rate {rate}"
            );
        }
    }
}

fn problems(text: &str) -> Vec<String> {
    match Scenario::from_toml_str(text, "bad.toml") {
        Err(ScenarioError::Invalid { problems, .. }) => {
            problems.iter().map(|p| p.to_string()).collect()
        }
        Err(e) => panic!("expected validation problems, got {e}"),
        Ok(_) => panic!("expected validation problems"),
    }
}

#[test]
fn bad_joints_name_the_field() {
    let base = example("01_double_pendulum.toml");
    let p = problems(&base.replace("body_a = \"lower\"", "body_a = \"lowr\""));
    assert!(
        p.iter()
            .any(|m| m.starts_with("joints[1].body_a:")
                && m.contains("no body or beam named \"lowr\"")),
        "{p:?}"
    );
    // a rod of prescribed length that does not match the initial configuration
    let p = problems(&base.replace("body_b = \"upper\"", "body_b = \"upper\"\nlength = 3.5"));
    assert!(
        p.iter().any(|m| m.starts_with("joints[1].point_b:")
            && m.contains("violated in the initial configuration")),
        "{p:?}"
    );
    // a spherical joint at a point away from the other body's point
    let p = problems(&base.replace(
        "kind = \"distance\"\nbody_a = \"lower\"",
        "kind = \"spherical\"\nbody_a = \"lower\"",
    ));
    assert!(
        p.iter()
            .any(|m| m.starts_with("joints[1].point_b:") && m.contains("apart")),
        "{p:?}"
    );
    let chain = example("04_four_body_chain.toml");
    let p = problems(&chain.replacen(
        "axis_a = [0.0, 1.0, 0.0] # components",
        "axis_a = [0.0, 0.0, 0.0] # components",
        1,
    ));
    assert!(
        p.iter()
            .any(|m| m.starts_with("joints[0].axis_a:") && m.contains("zero length")),
        "{p:?}"
    );
    let p = problems(&chain.replacen(
        "axis_b = [0.0, 1.0, 0.0]  # global",
        "axis_b = [1.0, 0.0, 0.0]  # global",
        1,
    ));
    assert!(
        p.iter()
            .any(|m| m.starts_with("joints[0].axis_b:") && m.contains("not parallel")),
        "{p:?}"
    );
}
