//! The default forward method of the planar beam (issue 14, `docs/verification.md` §B9): a
//! scenario without `[dynamic] method` integrates with the energy-momentum stepper, and at the
//! step of the flying-beam example it reaches the tip accuracy the docs state — better than the
//! space-time slabs at the same step, with as many Newton iterations (the work-precision study
//! shows the whole-run times; tests do not time).

use std::path::Path;
use stmech::beam::dynamics::EnergyMomentumStepper;
use stmech::beam::integrator::{BeamIntegrator, DynamicMethod, advance_to};
use stmech::beam::reference::Rk4Reference;
use stmech::beam::space_time::{SpaceTimeSettings, SpaceTimeSolver};
use stmech::io::beam_scenario::{BeamAnalysis, BeamScenario};

/// Tip positions at t = 0, 0.1, 0.2, … and the Newton iterations of a run to `end`.
fn tip_samples(it: &mut dyn BeamIntegrator, end: f64, tip: usize) -> (Vec<[f64; 2]>, usize) {
    let p = it.node_state(tip);
    let mut out = vec![[p[0], p[1]]];
    let mut iterations = 0;
    advance_to(it, end, &mut |s| {
        iterations += s.iterations();
        if (s.time() - 0.1 * out.len() as f64).abs() < 1e-9 {
            let p = s.node_state(tip);
            out.push([p[0], p[1]]);
        }
    })
    .unwrap();
    (out, iterations)
}

fn max_distance(a: &[[f64; 2]], b: &[[f64; 2]]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(p, q)| (p[0] - q[0]).hypot(p[1] - q[1]))
        .fold(0.0, f64::max)
}

#[test]
fn default_method_is_the_energy_momentum_stepper_and_meets_its_documented_accuracy() {
    assert_eq!(DynamicMethod::default(), DynamicMethod::EnergyMomentum);
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/beam/03_flying_beam.toml");
    let sc = BeamScenario::from_path(&path).unwrap();
    // the example does not name a method: it gets the default
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.lines().any(|l| l.trim_start().starts_with("method")));
    assert_eq!(sc.method, DynamicMethod::default());
    let BeamAnalysis::Dynamic { end, step } = sc.analysis else {
        panic!("the flying beam is dynamic")
    };
    assert_eq!((end, step), (15.0, 0.025));
    let m = &sc.model;
    let tip = m.tip_node();
    // independent reference: RK4 with a 50 times smaller step (its error ~5e-8 m, §B9)
    let (reference, _) = tip_samples(
        &mut Rk4Reference::at_rest(m, step / 50.0).unwrap(),
        end,
        tip,
    );
    let mut em = EnergyMomentumStepper::at_rest(m, step, sc.newton).unwrap();
    let (em_tip, em_iterations) = tip_samples(&mut em, end, tip);
    let settings = SpaceTimeSettings {
        newton: sc.newton,
        ..Default::default()
    };
    let mut st = SpaceTimeSolver::at_rest(m, step, settings).unwrap();
    let (st_tip, st_iterations) = tip_samples(&mut st, end, tip);
    let (e_em, e_st) = (
        max_distance(&em_tip, &reference),
        max_distance(&st_tip, &reference),
    );
    eprintln!(
        "Δt = {step}: max tip error energy-momentum {e_em:.3e} m ({em_iterations} iterations), \
         space-time {e_st:.3e} m ({st_iterations} iterations)"
    );
    // docs/verification.md §B9: 7.6e-3 m (energy-momentum) and 1.05e-2 m (space-time)
    assert!((7.5e-3..7.8e-3).contains(&e_em), "{e_em}");
    assert!((1.03e-2..1.07e-2).contains(&e_st), "{e_st}");
    assert!(e_em < 0.75 * e_st);
    // both need two Newton iterations per step here (1200 ± 2 in 600 steps)
    assert!(em_iterations <= 1210 && st_iterations <= 1210);
}
