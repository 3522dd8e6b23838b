//! Cross-check of the two forward solvers of the planar beam (issue 4, item 4): the space-time
//! finite elements of `stmech::inverse` in forward mode (bilinear in s and t) and the
//! semi-discrete beam with the energy-momentum stepper of `stmech::beam`. Both discretise the
//! same continuum problem differently, so their tip motions must converge to each other as
//! both are refined together (h_s and Δt halved).
//!
//! Problem: the free–free beam of `[I]` Example 3.2 (all section constants 1, L = 1), at rest,
//! pushed at s = 0 by F(t) = (0.3, 0.2, 0.1)·sin²(πt) on [0, 1] s (applied to the beam), then
//! free until t = 2 s.

use stmech::beam::dynamics::EnergyMomentumStepper;
use stmech::beam::model::{BeamModel as ForwardBeam, BeamSpec, EndCondition, PointLoad};
use stmech::beam::section::ConstitutiveLaw;
use stmech::inverse::solver::{BeamModel, NewtonSettings, SpaceTimeMesh, solve_forward};
use stmech::model::TimeFunction;
use stmech::solve::NewtonParams;

const AMP: [f64; 3] = [0.3, 0.2, 0.1];
const T_END: f64 = 2.0;

fn pulse(t: f64) -> f64 {
    if (0.0..=1.0).contains(&t) {
        (std::f64::consts::PI * t).sin().powi(2)
    } else {
        0.0
    }
}

/// Tip poses of the space-time solution at its time nodes.
fn space_time(ns: usize, nt: usize) -> Vec<(f64, [f64; 3])> {
    let beam = BeamModel::example_3_2(ConstitutiveLaw::Quadratic);
    let mesh = SpaceTimeMesh {
        t_start: 0.0,
        t_end: T_END,
        elements_s: ns,
        elements_t: nt,
    };
    let f = |t: f64| [AMP[0] * pulse(t), AMP[1] * pulse(t), AMP[2] * pulse(t)];
    let sol = solve_forward(&beam, &mesh, &f, None, &NewtonSettings::default())
        .expect("space-time forward run converges");
    (0..=nt).map(|j| (sol.t[j], sol.tip(j))).collect()
}

/// Tip poses of the energy-momentum stepper at the times of `at`.
fn stepper(ns: usize, dt: f64, at: &[f64]) -> Vec<[f64; 3]> {
    let beam = BeamModel::example_3_2(ConstitutiveLaw::Quadratic);
    let mut spec = BeamSpec::cantilever(1.0, beam.section, ns, 1);
    spec.start = EndCondition::Free;
    spec.end = EndCondition::Free;
    // the pulse as a dense table (exact at the table points, linear in between)
    let times: Vec<f64> = (0..=2000).map(|k| k as f64 * T_END / 2000.0).collect();
    let values: Vec<f64> = times.iter().map(|&t| pulse(t)).collect();
    spec.point_loads.push(PointLoad {
        node: 0,
        force: [AMP[0], AMP[1]],
        moment: AMP[2],
        time_function: TimeFunction::Table { times, values },
    });
    let model = ForwardBeam::try_new(spec).expect("valid model");
    let tip = model.tip_node();
    let newton = NewtonParams {
        tolerance: 1e-11,
        max_iterations: 25,
    };
    let mut st = EnergyMomentumStepper::at_rest(&model, dt, newton).expect("stepper starts");
    let mut out = Vec::with_capacity(at.len());
    out.push(st.node(tip));
    st.run_until(T_END, |s| {
        if at.iter().any(|&t| (t - s.time()).abs() < 1e-9) {
            out.push(s.node(tip));
        }
    })
    .expect("stepper converges");
    out
}

#[test]
fn space_time_and_energy_momentum_forward_solutions_converge_to_each_other() {
    let mut diffs = Vec::new();
    for (ns, nt) in [(10usize, 20usize), (20, 40), (40, 80)] {
        let st = space_time(ns, nt);
        let times: Vec<f64> = st.iter().map(|p| p.0).collect();
        let em = stepper(ns, T_END / nt as f64, &times);
        assert_eq!(em.len(), st.len());
        let d = st
            .iter()
            .zip(&em)
            .map(|((_, a), b)| (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max))
            .fold(0.0, f64::max);
        let tip_motion = st.last().unwrap().1;
        eprintln!(
            "hs = {:.4}, dt = {:.4}: max tip difference {d:.3e} (tip at t = 2: {tip_motion:.4?})",
            1.0 / ns as f64,
            T_END / nt as f64
        );
        diffs.push(d);
    }
    let rates: Vec<f64> = diffs.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    eprintln!("observed orders {rates:.2?}");
    assert!(
        rates.iter().all(|&r| r > 1.5),
        "the two forward solvers must converge to each other at ≈ 2nd order: {diffs:?}"
    );
}
