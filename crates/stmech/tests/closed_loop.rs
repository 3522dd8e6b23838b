//! Closed loop for the inverse dynamics of `[I]` Example 3.2: the actuation computed by the
//! space-time inverse solver (`stmech::inverse`) is fed, as a time table, into the
//! *independent* forward solver of the planar beam (`stmech::beam`: semi-discrete finite
//! elements in space plus the energy-momentum time stepper, a different discretisation on a
//! finer mesh). The forward tip must follow the prescribed trajectory γ(t), and the largest
//! deviation over the whole time domain [0, 6] s must go to zero as the inverse mesh is refined.

use stmech::beam::section::ConstitutiveLaw;
use stmech::inverse::closed_loop::{ForwardDiscretisation, closed_loop};
use stmech::inverse::solver::{BeamModel, NewtonSettings, SpaceTimeMesh, solve_inverse};
use stmech::inverse::trajectory::RestToRestArc;

/// Forward discretisation of the verification tables: 32 quadratic elements, Δt = 4 ms.
const TABLE_FORWARD: ForwardDiscretisation = ForwardDiscretisation {
    elements: 32,
    order: 2,
    dt: 4e-3,
};

/// Largest tip deviation `max_t |tip(t) − γ(t)|` (position in m, angle in rad) of the forward
/// run driven by the inverse solution on `elements_s` space elements.
fn closed_loop_deviation(law: ConstitutiveLaw, elements_s: usize) -> ([f64; 2], f64) {
    let beam = BeamModel::example_3_2(law);
    let gamma = RestToRestArc::example_3_2();
    let mesh = SpaceTimeMesh::auto(&beam, 0.0, 6.0, elements_s);
    let sol = solve_inverse(&beam, &mesh, &gamma, &NewtonSettings::default())
        .expect("inverse problem solves");
    let r = closed_loop(
        &beam,
        &gamma,
        0.0,
        6.0,
        &sol.actuation_samples(),
        &TABLE_FORWARD,
    )
    .expect("forward run converges");
    ([r.max_position_error_m, r.max_angle_error_rad], sol.hs())
}

#[test]
fn example_3_2_actuation_makes_forward_tip_follow_trajectory() {
    for law in [ConstitutiveLaw::Log, ConstitutiveLaw::Quadratic] {
        let mut dev = Vec::new();
        for ns in [10usize, 20, 40] {
            let (d, hs) = closed_loop_deviation(law, ns);
            eprintln!(
                "{law:?}: inverse mesh hs = {hs:.4} m: max tip deviation {:.3e} m, angle {:.3e} rad",
                d[0], d[1]
            );
            dev.push(d);
        }
        for k in 0..2 {
            let rates: Vec<f64> = dev.windows(2).map(|w| (w[0][k] / w[1][k]).log2()).collect();
            eprintln!(
                "  observed orders ({}): {rates:.2?}",
                ["position", "angle"][k]
            );
            assert!(
                dev.windows(2).all(|w| w[1][k] < 0.6 * w[0][k]),
                "{law:?}: deviation must shrink with refinement: {dev:?}"
            );
        }
        assert!(dev[2][0] < 5e-3, "{law:?}: finest deviation {:?}", dev[2]);
    }
}

/// The automatic forward discretisation (`n_s` quadratic elements, a quarter node spacing per
/// step of the fastest wave) gives the same closed-loop deviation, within 5 %, as the table's 32
/// quadratic elements with Δt = 4 ms (docs/verification.md: 6.43e-3 m for the log law on 20
/// elements) and as half its own time step on 64 elements (the forward model's own error is a
/// small part of the figure).
#[test]
fn automatic_forward_discretisation_matches_table() {
    let law = ConstitutiveLaw::Log;
    let beam = BeamModel::example_3_2(law);
    let gamma = RestToRestArc::example_3_2();
    for ns in [20usize, 64] {
        let mesh = SpaceTimeMesh::auto(&beam, 0.0, 6.0, ns);
        let t = std::time::Instant::now();
        let sol = solve_inverse(&beam, &mesh, &gamma, &NewtonSettings::default()).unwrap();
        let solve = t.elapsed().as_secs_f64();
        let disc = ForwardDiscretisation::auto(&beam, &mesh);
        let auto = closed_loop(&beam, &gamma, 0.0, 6.0, &sol.actuation_samples(), &disc).unwrap();
        // reference: the table's forward mesh on 20 elements, the automatic one with half the
        // time step on 64 (4 ms is coarser than the automatic step there)
        let reference = if ns == 20 {
            TABLE_FORWARD
        } else {
            ForwardDiscretisation {
                dt: disc.dt / 2.0,
                ..disc
            }
        };
        let table = closed_loop(
            &beam,
            &gamma,
            0.0,
            6.0,
            &sol.actuation_samples(),
            &reference,
        )
        .unwrap();
        eprintln!(
            "{ns} x {}: solve {solve:.3} s; auto {disc:?}: {:.3e} m at t = {:.3} s, {:.3e} rad at \
             t = {:.3} s, {} steps, {:.3} s; reference: {:.3e} m, {:.3e} rad, {:.3} s",
            mesh.elements_t,
            auto.max_position_error_m,
            auto.max_position_error_time_s,
            auto.max_angle_error_rad,
            auto.max_angle_error_time_s,
            auto.steps,
            auto.seconds,
            table.max_position_error_m,
            table.max_angle_error_rad,
            table.seconds
        );
        assert_eq!(disc.elements, ns);
        assert_eq!(auto.steps, disc.steps(0.0, 6.0));
        let rel = |a: f64, b: f64| (a - b).abs() / b;
        assert!(rel(auto.max_position_error_m, table.max_position_error_m) < 0.05);
        assert!(rel(auto.max_angle_error_rad, table.max_angle_error_rad) < 0.05);
        // the deviation occurs while the tip moves or the beam rings down, inside [2, 6] s
        assert!(auto.max_position_error_time_s > 2.0);
        if ns == 20 {
            // docs/verification.md: 6.43e-3 m (log law, 20 elements, 32 quadratic, 4 ms)
            assert!(rel(table.max_position_error_m, 6.43e-3) < 0.01);
        }
    }
}
