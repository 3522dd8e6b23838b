//! Parallel element assembly of the planar beam (issue 14): both forward integrators give the
//! same bits for 1, 2 and 3 threads. The element terms are computed in parallel batches
//! (`beam::assembly::ElementPass`) and added serially in mesh order, so every sum is the serial
//! one; the mesh has more elements than one batch, so that batches are exercised too.

use stmech::beam::assembly::{ElementPass, PARALLEL_BATCH};
use stmech::beam::dynamics::{EnergyMomentumStepper, RotationIncrement};
use stmech::beam::integrator::BeamIntegrator;
use stmech::beam::model::*;
use stmech::beam::section::*;
use stmech::beam::space_time::{SpaceTimeSettings, SpaceTimeSolver};
use stmech::model::load::TimeFunction;
use stmech::solve::NewtonParams;

const ELEMENTS: usize = PARALLEL_BATCH + 88;

/// A free–free beam pushed and twisted at one end (log law, so that every element term is
/// non-trivial), quadratic elements.
fn model() -> BeamModel {
    let sec = SectionProperties {
        rho_a: 1.0,
        rho_i: 0.1,
        ea: 1e3,
        ga: 4e2,
        ei: 1.0,
    };
    let mut spec = BeamSpec::cantilever(1.0, sec, ELEMENTS, 2);
    spec.law = ConstitutiveLaw::Log;
    spec.start = EndCondition::Free;
    let pulse = TimeFunction::Table {
        times: vec![0.0, 0.01, 0.02],
        values: vec![0.0, 1.0, 0.0],
    };
    spec.point_loads.push(PointLoad {
        node: 0,
        force: [3.0, 2.0],
        moment: 0.4,
        time_function: pulse,
    });
    BeamModel::try_new(spec).unwrap()
}

/// Bits of `x`, `v` and the Newton iteration counts after 12 steps of each integrator.
fn run(threads: usize, m: &BeamModel) -> Vec<u64> {
    let newton = NewtonParams {
        tolerance: 1e-10,
        max_iterations: 30,
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| {
            assert_eq!(ElementPass::new(m.spec.elements).is_parallel(), threads > 1);
            let mut bits = Vec::new();
            let mut record = |it: &mut dyn BeamIntegrator| {
                for _ in 0..12 {
                    it.advance().unwrap();
                    bits.push(it.iterations() as u64);
                }
                bits.extend(it.x().iter().chain(it.v()).map(|v| v.to_bits()));
            };
            for rotation in [RotationIncrement::Cayley, RotationIncrement::Additive] {
                let mut em = EnergyMomentumStepper::at_rest(m, 2e-3, newton)
                    .unwrap()
                    .with_rotation_increment(rotation);
                record(&mut em);
            }
            let settings = SpaceTimeSettings {
                newton,
                ..Default::default()
            };
            let mut st = SpaceTimeSolver::at_rest(m, 2e-3, settings).unwrap();
            record(&mut st);
            bits
        })
}

#[test]
fn one_two_and_three_threads_give_identical_bits() {
    let m = model();
    assert!(m.spec.elements > PARALLEL_BATCH);
    let one = run(1, &m);
    // the run moved: the beam is not at rest, Newton iterated
    let moved = m
        .x_ref
        .iter()
        .zip(&one[12..12 + m.n_dofs()])
        .any(|(a, b)| a.to_bits() != *b);
    assert!(moved);
    assert_eq!(run(2, &m), one, "2 threads differ from 1");
    assert_eq!(run(3, &m), one, "3 threads differ from 1");
}
