//! Closed loop for the inverse dynamics of `[I]` Example 3.2: the actuation computed by the
//! space-time inverse solver (`stmech::inverse`) is fed, as a time table, into the
//! *independent* forward solver of the planar beam (`stmech::beam`: semi-discrete finite
//! elements in space plus the energy-momentum time stepper, a different discretisation on a
//! finer mesh). The forward tip must follow the prescribed trajectory γ(t), and the largest
//! deviation over the whole time domain [0, 6] s must go to zero as the inverse mesh is refined.

use stmech::beam::dynamics::EnergyMomentumStepper;
use stmech::beam::model::{BeamModel as ForwardBeam, BeamSpec, EndCondition, PointLoad};
use stmech::beam::section::ConstitutiveLaw;
use stmech::inverse::solver::{BeamModel, NewtonSettings, SpaceTimeMesh, solve_inverse};
use stmech::inverse::trajectory::{RestToRestArc, TipTrajectory};
use stmech::model::TimeFunction;
use stmech::solve::NewtonParams;

/// Largest tip deviation `max_t |tip(t) − γ(t)|` (position in m, angle in rad) of the forward
/// run driven by the inverse solution on `elements_s` space elements.
fn closed_loop_deviation(law: ConstitutiveLaw, elements_s: usize) -> ([f64; 2], f64) {
    let beam = BeamModel::example_3_2(law);
    let gamma = RestToRestArc::example_3_2();
    let mesh = SpaceTimeMesh::auto(&beam, 0.0, 6.0, elements_s);
    let sol = solve_inverse(&beam, &mesh, &gamma, &NewtonSettings::default())
        .expect("inverse problem solves");
    let samples = sol.actuation_samples();
    let times: Vec<f64> = samples.iter().map(|s| s.0).collect();
    // the actuation is the load applied *to the beam* at s = 0 (global frame), as is a
    // PointLoad of the forward model: one load per component, each scaled by its time table
    let table = |k: usize| TimeFunction::Table {
        times: times.clone(),
        values: samples.iter().map(|s| s.1[k]).collect(),
    };
    let mut spec = BeamSpec::cantilever(1.0, beam.section, 32, 2);
    spec.law = law;
    spec.start = EndCondition::Free;
    spec.end = EndCondition::Free;
    for (k, (force, moment)) in [([1.0, 0.0], 0.0), ([0.0, 1.0], 0.0), ([0.0, 0.0], 1.0)]
        .into_iter()
        .enumerate()
    {
        spec.point_loads.push(PointLoad {
            node: 0,
            force,
            moment,
            time_function: table(k),
        });
    }
    let model = ForwardBeam::try_new(spec).expect("valid forward model");
    let tip = model.tip_node();
    let newton = NewtonParams {
        tolerance: 1e-10,
        max_iterations: 25,
    };
    let mut stepper = EnergyMomentumStepper::at_rest(&model, 4e-3, newton).expect("stepper starts");
    let mut worst = [0.0f64; 2];
    stepper
        .run_until(6.0, |s| {
            let x = s.node(tip);
            let g = gamma.pose(s.time());
            worst[0] = worst[0].max(((x[0] - g[0]).powi(2) + (x[1] - g[1]).powi(2)).sqrt());
            worst[1] = worst[1].max((x[2] - g[2]).abs());
        })
        .expect("forward run converges");
    (worst, sol.hs())
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
