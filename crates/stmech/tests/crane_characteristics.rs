//! Issue 17, crane inverse dynamics by the method of characteristics
//! (`stmech::inverse::crane::solve_crane_characteristics`, the sideways march of `[I]` Sect. 3
//! with the string as its body), against references it was not tuned to:
//!
//! * `characteristics_agree_with_the_fem_under_refinement` (item 4 of the issue): on the
//!   example manoeuvre (3D, rope mass = payload mass, (8, 4, 2) m transfer) the suspension
//!   motions of the FEM and of the characteristics differ by a quantity that falls at order 2
//!   over three meshes; the characteristics' suspension motion, replayed in the forward rope
//!   model (an independent discretisation), keeps the payload on its path, the deviation
//!   falling at order 2; the payload row is the path exactly; same bits on a second run.
//! * `rigid_rope_limit`: for a light, stiff rope the suspension motion tends to the flat output
//!   of the rigid pendulum crane `x₀ = y + L (ÿ − g)/|ÿ − g|`, the difference falling linearly
//!   with the rope mass and with the compliance (the FEM's C5 table, docs/verification.md).
//! * `equal_accuracy_study` (`--ignored`): time of each method at equal closed-loop accuracy,
//!   one run measuring both (numbers in docs/verification.md, C10).

use stmech::inverse::crane::{self, CraneSolution};
use stmech::inverse::trajectory::{RestToRestLine, TipTrajectory};
use stmech::inverse::{CharacteristicsSettings, NewtonSettings, SpaceTimeMesh};
use stmech::string::StringModel;

fn rope() -> StringModel {
    StringModel::crane_example()
}

fn path() -> RestToRestLine {
    RestToRestLine::crane_example()
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|c| (a[c] - b[c]).powi(2)).sum::<f64>().sqrt()
}

fn characteristics(m: &StringModel, mesh: &SpaceTimeMesh) -> CraneSolution {
    crane::solve_crane_characteristics(m, mesh, &path(), &CharacteristicsSettings::default())
        .unwrap()
}

/// Largest distance of the suspension motions (m) and of the forces (N) at the time nodes.
fn difference(a: &CraneSolution, b: &CraneSolution) -> (f64, f64) {
    (0..a.solution.t.len()).fold((0.0f64, 0.0f64), |(dx, df), j| {
        (
            dx.max(dist(a.suspension(j), b.suspension(j))),
            df.max(dist(a.solution.actuation[j], b.solution.actuation[j])),
        )
    })
}

#[test]
fn characteristics_agree_with_the_fem_under_refinement() {
    let p = path();
    let (mut diffs, mut devs, mut earlies) = (Vec::new(), Vec::new(), Vec::new());
    for ns in [8, 16, 32] {
        let mesh = crane::auto_mesh(&rope(), &p, 0.0, 12.0, ns).unwrap();
        let t = std::time::Instant::now();
        let ch = characteristics(&rope(), &mesh);
        let t_ch = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let fem = crane::solve_crane(&rope(), &mesh, &p, &NewtonSettings::default()).unwrap();
        let t_fem = t.elapsed().as_secs_f64();
        let (dx, df) = difference(&fem, &ch);
        let (cl, _) = crane::closed_loop(&ch, &p, 2).unwrap();
        let m = ch.march.as_ref().unwrap();
        println!(
            "{ns} × {}: max |x_FEM − x_char|(0, t) = {dx:.3e} m, max |F_FEM − F_char| = \
             {df:.3e} N; characteristics closed loop ({} el., Δt = {:.4} s) {:.3e} m; \
             fixed-point iterations {:.2} per node (max {}), speeds {:.3}-{:.1} m/s; time \
             char {t_ch:.3} s, FEM {t_fem:.3} s",
            mesh.elements_t,
            cl.elements_s,
            cl.dt,
            cl.max_deviation,
            m.iterations_total as f64 / m.nodes as f64,
            m.iterations_max,
            m.speed_range[0],
            m.speed_range[1],
        );
        // the payload row is the Cauchy data: the path itself
        for (j, &t) in ch.solution.t.iter().enumerate() {
            assert!(dist(ch.solution.tip(j), p.pose(t)) < 1e-13);
        }
        // hanging at rest until the pre-actuation: before t0 − T (T = 0.84 s) only the
        // interpolation's tails (2 time steps per line) reach the top
        let x0 = ch.suspension(0);
        let early = (0..ch.solution.t.len())
            .filter(|&j| ch.solution.t[j] < 2.0 - rope().travel_time())
            .fold(0.0f64, |mx, j| mx.max(dist(ch.suspension(j), x0)));
        println!("  largest motion before t0 − T: {early:.2e} m");
        earlies.push(early);
        // deterministic: the same bits again
        if ns == 8 {
            let again = characteristics(&rope(), &mesh);
            assert!(
                again
                    .solution
                    .x
                    .iter()
                    .zip(&ch.solution.x)
                    .all(|(a, b)| (0..3).all(|c| a[c].to_bits() == b[c].to_bits()))
            );
        }
        diffs.push(dx);
        devs.push(cl.max_deviation);
    }
    for k in 0..2 {
        let (od, oc) = (
            (diffs[k] / diffs[k + 1]).log2(),
            (devs[k] / devs[k + 1]).log2(),
        );
        println!("orders: difference {od:.2}, closed loop {oc:.2}");
        assert!(od > 1.8 && oc > 1.8, "{diffs:?} {devs:?}");
    }
    // causality is sharp up to the interpolation's reach, which shrinks with the mesh
    assert!(
        earlies[2] < 0.1 * earlies[0] && earlies[2] < 1e-5,
        "{earlies:?}"
    );
    // measured 3.3e-4 m and 7.4e-4 m on 32 × 376 (payload travel 9.17 m)
    assert!(diffs[2] < 5e-4 && devs[2] < 1e-3, "{diffs:?} {devs:?}");
}

#[test]
fn rigid_rope_limit() {
    let p = path();
    let mesh = SpaceTimeMesh {
        t_start: 0.0,
        t_end: 12.0,
        elements_s: 32,
        elements_t: 720,
    };
    let rigid = |m: &StringModel| {
        let sol = characteristics(m, &mesh);
        (0..sol.solution.t.len()).fold(0.0f64, |mx, j| {
            mx.max(dist(
                sol.suspension(j),
                crane::rigid_suspension(m, &p, sol.solution.t[j]),
            ))
        })
    };
    // (ρA = 2 kg/m at EA = 1e8 N, the FEM's first row, is beyond the per-node fixed point:
    // docs/verification.md C10)
    let mut by_mass = Vec::new();
    for rho_a in [0.2, 0.02, 0.002, 0.0002] {
        let mut m = rope();
        m.rho_a = rho_a;
        m.ea = 1e8;
        let d = rigid(&m);
        println!("ρA = {rho_a} kg/m, EA = 1e8 N: max |x − x_rigid| = {d:.3e} m");
        by_mass.push(d);
    }
    let mut by_stiffness = Vec::new();
    for ea in [1e5, 1e6, 1e7, 1e8] {
        let mut m = rope();
        m.rho_a = 2e-4;
        m.ea = ea;
        let d = rigid(&m);
        println!("ρA = 2e-4 kg/m, EA = {ea:.0e} N: max |x − x_rigid| = {d:.3e} m");
        by_stiffness.push(d);
    }
    // linear in the rope mass, then in the compliance, → 0
    for k in 0..2 {
        assert!(by_mass[k] / by_mass[k + 1] > 5.0, "{by_mass:?}");
        assert!(
            by_stiffness[k] / by_stiffness[k + 1] > 5.0,
            "{by_stiffness:?}"
        );
    }
    assert!(by_mass[3] < by_mass[2] && by_stiffness[3] < by_stiffness[2]);
    assert!(by_stiffness[3] < 1e-4, "{by_stiffness:?}");
}

/// Time of each method at equal closed-loop accuracy: both on the meshes of the example
/// family (μ = 1 at the slowest wave), the characteristics also with half the time elements
/// (μ = 2, which the FEM may not use beyond; the characteristics' error is dominated by `hs`).
/// Closed loop refined 4× so that the forward model's own error stays below the compared
/// ones. One run measures both; best of 3 solves.
#[test]
#[ignore]
fn equal_accuracy_study() {
    let p = path();
    let best = |f: &dyn Fn() -> CraneSolution| {
        let mut t_best = f64::INFINITY;
        let mut sol = None;
        for _ in 0..3 {
            let t = std::time::Instant::now();
            let s = f();
            t_best = t_best.min(t.elapsed().as_secs_f64());
            sol = Some(s);
        }
        (sol.unwrap(), t_best)
    };
    for ns in [16, 32, 64, 128] {
        let mesh = crane::auto_mesh(&rope(), &p, 0.0, 12.0, ns).unwrap();
        let half = SpaceTimeMesh {
            elements_t: mesh.elements_t / 2,
            ..mesh
        };
        let (fem, t_fem) =
            best(&|| crane::solve_crane(&rope(), &mesh, &p, &NewtonSettings::default()).unwrap());
        let (ch, t_ch) = best(&|| characteristics(&rope(), &mesh));
        let (ch2, t_ch2) = best(&|| characteristics(&rope(), &half));
        let dev = |s: &CraneSolution| crane::closed_loop(s, &p, 4).unwrap().0.max_deviation;
        println!(
            "ns = {ns}: FEM {} × {}: {t_fem:.4} s, closed loop {:.3e} m | characteristics \
             same mesh: {t_ch:.4} s, {:.3e} m | characteristics {} × {}: {t_ch2:.4} s, {:.3e} m",
            mesh.elements_s,
            mesh.elements_t,
            dev(&fem),
            dev(&ch),
            half.elements_s,
            half.elements_t,
            dev(&ch2),
        );
    }
}

/// A nearly inextensible taut rope (a steel cable: EA = 1e9 N under a 20 kg payload and a
/// 2 kg rope, strain m g/EA = 2.0e-7 to 2.2e-7) is not called slack by the march (issue 29):
/// the midpoint states and the predictors take the stretch from the states' own strains
/// (`string::stretch_minus_one`), not from the length of a componentwise mean or sum of
/// near-unit tangents, which loses the products of their angles (~1e-6 in a step) — more
/// than the whole strain. The solution agrees with the FEM and keeps the payload on its path.
#[test]
fn a_nearly_inextensible_taut_rope_is_not_called_slack() {
    let mut m = rope();
    m.rho_a = 0.2;
    m.ea = 1e9;
    let p = path();
    let mesh = crane::auto_mesh(&m, &p, 0.0, 12.0, 16).unwrap();
    let ch = crane::solve_crane_characteristics(&m, &mesh, &p, &CharacteristicsSettings::default())
        .unwrap_or_else(|e| panic!("EA = 1e9 N, ρA = 0.2 kg/m on {mesh:?}: {e}"));
    // taut everywhere, by a strain of the order of the weight's (the smallest tension, the
    // payload's m·min|ÿ − g|, dips to 2/3 of m g where the lift decelerates)
    let strain = ch.min_stretch - 1.0;
    let at_rest = m.payload_mass * 9.81 / m.ea;
    assert!(
        strain > 0.5 * at_rest && strain < at_rest,
        "smallest strain {strain:e}, the payload's weight gives {at_rest:e}"
    );
    // (the FEM solves this rope too, by its stiffness continuation: tests/crane_steel.rs)
    let (cl, _) = crane::closed_loop(&ch, &p, 2).unwrap();
    let rigid = (0..ch.solution.t.len()).fold(0.0f64, |mx, j| {
        mx.max(dist(
            ch.suspension(j),
            crane::rigid_suspension(&m, &p, ch.solution.t[j]),
        ))
    });
    println!(
        "EA = 1e9 N, ρA = 0.2 kg/m, {} × {}: smallest strain {strain:.3e}; closed loop {:.3e} \
         m; max |x − x_rigid| = {rigid:.3e} m",
        mesh.elements_s, mesh.elements_t, cl.max_deviation
    );
    // the replay keeps the payload on its path (the 16-element example rope: 8.0e-4 m), and
    // the suspension motion is the rigid rope's up to the rope's mass (ρA L/m = 0.1: 2.4e-2 m
    // in the rigid-rope limit above)
    assert!(cl.max_deviation < 2e-3, "{:e}", cl.max_deviation);
    assert!(rigid < 5e-2, "{rigid:e}");
}
