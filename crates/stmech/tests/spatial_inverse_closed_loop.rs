//! Issue 16 item 2: the computed actuation of the helix manoeuvre (a quarter helix with a 90°
//! twist of the tip frame, a tip body as heavy as the arm), replayed in the one model's
//! forward director beam on a finer and different discretisation
//! ([`ForwardResolution::finer_than`]: quadratic elements, cG(2), a quarter of the inverse
//! step), moves the tip body along the path: the largest position and orientation deviations
//! over the whole run fall at the design order of the inverse method (2) over three meshes.

use std::sync::Arc;
use stmech::inverse::InverseMethod;
use stmech::inverse::NewtonSettings;
use stmech::inverse::SpaceTimeSolution;
use stmech::inverse::spatial::closed_loop::{ForwardResolution, Replay, closed_loop};
use stmech::inverse::spatial::solve::auto_mesh;
use stmech::inverse::spatial::{SpatialBeam, solve_with};
use stmech::inverse::trajectory::pose_csv::PoseCsvTrajectory;

fn force_replay(sol: &SpaceTimeSolution<SpatialBeam, 6>) -> Replay {
    let (mut force, mut moment) = (Vec::new(), Vec::new());
    for j in 0..sol.t.len() {
        let (f, m) = sol.base_actuation(j);
        force.push(f);
        moment.push(m);
    }
    Replay::Force {
        t: sol.t.clone(),
        force,
        moment,
    }
}

fn motion_replay(sol: &SpaceTimeSolution<SpatialBeam, 6>) -> Replay {
    let n = sol.t.len();
    let positions: Vec<_> = (0..n).map(|j| sol.position(0, j)).collect();
    let directors: Vec<_> = (0..n).map(|j| sol.directors(0, j)).collect();
    let base = PoseCsvTrajectory::from_samples("base motion", &sol.t, &positions, &directors)
        .expect("the base motion is a smooth pose path");
    Replay::Motion(Arc::new(base))
}

/// `(max position deviation, max angle deviation)` per inverse mesh `ns × auto`.
fn ladder(method: InverseMethod, motion: bool) -> Vec<(f64, f64)> {
    let beam = SpatialBeam::helix_example(1.0);
    let path = beam.helix_example_path();
    let mut out = Vec::new();
    for ns in [8, 16, 32] {
        let mesh = auto_mesh(&beam, 0.0, 6.0, ns);
        let run = solve_with(method, &beam, &mesh, &path, &NewtonSettings::default()).unwrap();
        let replay = if motion {
            motion_replay(&run.solution)
        } else {
            force_replay(&run.solution)
        };
        let res = ForwardResolution::finer_than(ns, mesh.ht());
        let started = std::time::Instant::now();
        let tr = closed_loop(&beam, &replay, &path, 0.0, 6.0, &res).unwrap();
        println!(
            "{method:?} motion={motion} {ns} × {}: position {:.3e} m at {:.2} s, angle {:.3e} rad at {:.2} s (replay {:.1} s)",
            mesh.elements_t,
            tr.max_position,
            tr.position_at,
            tr.max_angle,
            tr.angle_at,
            started.elapsed().as_secs_f64()
        );
        out.push((tr.max_position, tr.max_angle));
    }
    out
}

/// Asserts the design order 2 of both deviations over 8, 16, 32 elements (× the auto time
/// mesh: 48, 96, 192) and that the finest is small against the manoeuvre (a 1.6 m path, a
/// 1.57 rad twist).
fn assert_second_order(method: InverseMethod, motion: bool) {
    let l = ladder(method, motion);
    for k in 0..2 {
        let (p, a) = ((l[k].0 / l[k + 1].0).log2(), (l[k].1 / l[k + 1].1).log2());
        println!("orders {p:.2} (position), {a:.2} (angle)");
        assert!((1.8..2.5).contains(&p) && (1.8..2.5).contains(&a), "{l:?}");
    }
    assert!(l[2].0 < 3e-3 && l[2].1 < 1e-2, "{l:?}");
}

/// The space-time FEM's force and moment, and its base motion (a moving clamp), replayed.
#[test]
fn space_time_actuation_closes_the_loop_at_second_order() {
    assert_second_order(InverseMethod::SpaceTime, false);
    assert_second_order(InverseMethod::SpaceTime, true);
}

/// The method of characteristics' force and moment, and its base motion, replayed.
#[test]
fn characteristics_actuation_closes_the_loop_at_second_order() {
    assert_second_order(InverseMethod::Characteristics, false);
    assert_second_order(InverseMethod::Characteristics, true);
}
