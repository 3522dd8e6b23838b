//! Newton start of the space-time FEM for the inverse problem (issue 14): from the method of
//! characteristics on the quarter mesh (the default of `solve_with`) or on the same mesh, from a
//! coarser FEM solution (nested iteration), and the fall-back to the rigid beam (issue 29). The converged actuation must be
//! the one started from rest, to the Newton tolerance; only the iteration count may differ.

use stmech::beam::section::ConstitutiveLaw;
use stmech::inverse::{
    BeamModel, CharacteristicsSettings, InverseMethod, NewtonSettings, NewtonStart, RestToRestArc,
    RestToRestProfile, SpaceTimeMesh, SpaceTimeSolution, solve_characteristics, solve_inverse,
    solve_inverse_from, solve_space_time, solve_with,
};

fn max_diff(a: &SpaceTimeSolution, b: &SpaceTimeSolution) -> f64 {
    assert_eq!(a.actuation.len(), b.actuation.len());
    a.actuation
        .iter()
        .zip(&b.actuation)
        .flat_map(|(x, y)| (0..3).map(move |c| (x[c] - y[c]).abs()))
        .fold(0.0, f64::max)
}

fn example(elements_s: usize) -> (BeamModel, SpaceTimeMesh, RestToRestArc) {
    let beam = BeamModel::example_3_2(ConstitutiveLaw::Log);
    let mesh = SpaceTimeMesh::auto(&beam, 0.0, 6.0, elements_s);
    (beam, mesh, RestToRestArc::example_3_2())
}

#[test]
fn default_start_from_coarse_characteristics_gives_the_same_actuation() {
    let (beam, mesh, tr) = example(20);
    let newton = NewtonSettings::default();
    let rest = solve_inverse(&beam, &mesh, &tr, &newton).unwrap();
    let warm = solve_space_time(&beam, &mesh, &tr, &newton).unwrap();
    println!(
        "20 × {}: rest {} iterations {:?}; coarse characteristics {} iterations {:?} (march \
         {:.3} s)",
        mesh.elements_t,
        rest.newton.iterations,
        rest.newton.residuals,
        warm.newton.iterations,
        warm.newton.residuals,
        warm.newton.start_seconds
    );
    assert_eq!(rest.newton.start, NewtonStart::Rest);
    assert_eq!(warm.newton.start, NewtonStart::Characteristics);
    // (relative stop, `solve::newton`: 6 iterations; 5 with the former absolute 1e-10 on
    // residual entries that were below 1 from the start)
    assert_eq!(rest.newton.iterations, 6);
    assert!(warm.newton.iterations <= 3, "{:?}", warm.newton.residuals);
    let peak = rest
        .actuation
        .iter()
        .flatten()
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let d = max_diff(&warm, &rest);
    println!("max |ΔF| = {d:.2e} (peak {peak:.3})");
    assert!(d < 1e-8 * peak.max(1.0), "{d:e}");
    // solve_with uses this start for the space-time method
    let run = solve_with(InverseMethod::SpaceTime, &beam, &mesh, &tr, &newton).unwrap();
    assert_eq!(run.solution.newton.start, NewtonStart::Characteristics);
    assert_eq!(run.solution.actuation, warm.actuation);
}

#[test]
fn characteristics_on_the_same_mesh_need_three_iterations() {
    let (beam, mesh, tr) = example(20);
    let newton = NewtonSettings::default();
    let rest = solve_inverse(&beam, &mesh, &tr, &newton).unwrap();
    let chars = solve_characteristics(&beam, &mesh, &tr, &CharacteristicsSettings::default())
        .unwrap()
        .solution;
    let warm = solve_inverse_from(&beam, &mesh, &tr, &newton, chars).unwrap();
    println!("same-mesh characteristics: {:?}", warm.newton.residuals);
    assert_eq!(warm.newton.start, NewtonStart::Given);
    // (relative stop: 3; 2 with the former absolute 1e-10)
    assert_eq!(warm.newton.iterations, 3);
    // the first residual is that of the characteristics' solution in the FEM equations:
    // second-order close, two orders of magnitude below the rest start's (20 × 120: 1.4e-4
    // against 7.9e-2)
    assert!(warm.newton.residuals[0] < 1e-2 * rest.newton.residuals[0]);
    assert!(max_diff(&warm, &rest) < 1e-8);
}

#[test]
fn nested_iteration_from_a_coarser_mesh() {
    let (beam, mesh, tr) = example(40);
    let newton = NewtonSettings::default();
    let coarse_mesh = SpaceTimeMesh {
        elements_s: mesh.elements_s / 2,
        elements_t: mesh.elements_t / 2,
        ..mesh
    };
    let coarse = solve_inverse(&beam, &coarse_mesh, &tr, &newton).unwrap();
    let rest = solve_inverse(&beam, &mesh, &tr, &newton).unwrap();
    // interpolation reproduces the start's own nodes
    let (x, v) = coarse.field_at(coarse.s[3], coarse.t[7]);
    assert_eq!((x, v), (coarse.x_at(3, 7), coarse.v_at(3, 7)));
    let nested = solve_inverse_from(&beam, &mesh, &tr, &newton, coarse).unwrap();
    println!(
        "40 × {}: rest {} iterations, from the coarse FEM {} iterations {:?}",
        mesh.elements_t, rest.newton.iterations, nested.newton.iterations, nested.newton.residuals
    );
    assert_eq!(nested.newton.start, NewtonStart::Given);
    assert!(nested.newton.iterations <= 3);
    assert!(max_diff(&nested, &rest) < 1e-8);
}

#[test]
fn falls_back_to_the_rigid_beam_where_the_characteristics_cannot_march() {
    // the tip moves at once: the characteristics need it at rest for L/c_min after the start
    let (beam, mesh, _) = example(16);
    let tr = RestToRestArc {
        profile: RestToRestProfile {
            t0: 0.0,
            duration: 2.0,
        },
        ..RestToRestArc::example_3_2()
    };
    let newton = NewtonSettings::default();
    let rest = solve_inverse(&beam, &mesh, &tr, &newton).unwrap();
    let sol = solve_space_time(&beam, &mesh, &tr, &newton).unwrap();
    println!(
        "rest {:?}; rigid beam {:?}",
        rest.newton.residuals, sol.newton.residuals
    );
    // (issue 29: the beam moved rigidly with the tip is the start after the characteristics;
    // from rest only where Newton fails from it)
    assert_eq!(sol.newton.start, NewtonStart::RigidBeam);
    let peak = rest
        .actuation
        .iter()
        .flatten()
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let d = max_diff(&sol, &rest);
    println!("max |ΔF| = {d:.2e} (peak {peak:.3})");
    assert!(d < 1e-8 * peak.max(1.0), "{d:e}");
}
