//! Benchmarks of the planar beam: element kernel (residual + exact tangent, discrete
//! gradients), a static solve (elastica α = 10, 40 quadratic elements, 20 load steps), 100
//! energy-momentum steps of the flying beam (10 quadratic elements), and a free vibration of
//! 64 linear elements over 10⁴ time steps with the energy-momentum stepper and with the
//! Petrov–Galerkin space-time slabs (issue 4, item 3); the Cayley discrete gradient with its
//! analytic Jacobian, and 20 steps of a 512-element cantilever with both integrators on 1 and 2
//! threads (parallel element passes, issue 14).
//!
//! Run with `cargo bench -p stmech --bench beam` (about 3 minutes; the 10⁴-step runs use the
//! smallest sample size criterion allows).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use stmech::beam::cayley;
use stmech::beam::dynamics::{EnergyMomentumStepper, RotationIncrement};
use stmech::beam::element::{BeamElement, MAX_DOFS};
use stmech::beam::model::*;
use stmech::beam::section::SectionProperties;
use stmech::beam::space_time::{SpaceTimeSettings, SpaceTimeSolver};
use stmech::beam::statics::solve_static;
use stmech::model::load::TimeFunction;
use stmech::solve::NewtonParams;

fn section() -> SectionProperties {
    SectionProperties {
        rho_a: 1.0,
        rho_i: 10.0,
        ea: 1e4,
        ga: 1e4,
        ei: 500.0,
    }
}

fn bench(c: &mut Criterion) {
    let mut spec = BeamSpec::cantilever(1.0, section(), 40, 2);
    spec.point_loads.push(PointLoad {
        node: 80,
        force: [0.0, 5000.0],
        moment: 0.0,
        time_function: TimeFunction::Constant,
    });
    let model = BeamModel::try_new(spec).unwrap();
    let x: Vec<f64> = (0..model.element_dofs())
        .map(|i| 0.01 * i as f64 + if i % 3 == 0 { 0.02 * i as f64 } else { 0.0 })
        .collect();
    let el = model.element(0);
    c.bench_function("element_residual_tangent_p2", |b| {
        let (mut f, mut k) = ([0.0; MAX_DOFS], [[0.0; MAX_DOFS]; MAX_DOFS]);
        b.iter(|| {
            el.residual_into(black_box(&x), &mut f, Some(&mut k))
                .unwrap()
        })
    });
    c.bench_function("element_discrete_gradient_p2", |b| {
        let mut f = [0.0; MAX_DOFS];
        let x1: Vec<f64> = x.iter().map(|v| v + 0.1).collect();
        b.iter(|| {
            el.discrete_gradient_into(black_box(&x), black_box(&x1), &mut f)
                .unwrap()
        })
    });
    c.bench_function("element_discrete_gradient_cayley_p2", |b| {
        let mut f = [0.0; MAX_DOFS];
        let x1: Vec<f64> = x.iter().map(|v| v + 0.1).collect();
        b.iter(|| {
            cayley::discrete_gradient_into(&el, black_box(&x), black_box(&x1), &mut f).unwrap()
        })
    });
    c.bench_function("element_discrete_gradient_and_tangent_cayley_p2", |b| {
        let mut f = [0.0; MAX_DOFS];
        let mut k = [[0.0; MAX_DOFS]; MAX_DOFS];
        let x1: Vec<f64> = x.iter().map(|v| v + 0.1).collect();
        b.iter(|| {
            cayley::discrete_gradient_and_tangent_into(
                &el,
                black_box(&x),
                black_box(&x1),
                &mut f,
                &mut k,
            )
            .unwrap()
        })
    });
    let newton = NewtonParams {
        tolerance: 1e-8,
        max_iterations: 30,
    };
    c.bench_function("static_elastica_40xp2_20_steps", |b| {
        b.iter(|| solve_static(&model, 20, &newton).unwrap())
    });
    let mut spec = BeamSpec::cantilever(10.0, section(), 10, 2);
    spec.start = EndCondition::Free;
    spec.point_loads.push(PointLoad {
        node: 0,
        force: [8.0, 0.0],
        moment: 80.0,
        time_function: TimeFunction::Table {
            times: vec![0.0, 2.5, 5.0],
            values: vec![0.0, 1.0, 0.0],
        },
    });
    let fly = BeamModel::try_new(spec).unwrap();
    c.bench_function("flying_beam_100_steps", |b| {
        b.iter(|| {
            let mut st = EnergyMomentumStepper::at_rest(&fly, 0.05, newton).unwrap();
            st.run_until(5.0, |_| {}).unwrap();
            black_box(st.node(20))
        })
    });
}

/// Cantilever of `verification.md` B3 (`EA = 1e3`, `GA = 4e2`, `EI = 1`, `ρA = 1`, `ρI = 0.1`,
/// L = 1) with 64 linear elements, released from the static shape under a tip load of 4 N;
/// `Δt = 1 ms`, 10⁴ steps (10 s, about 6 periods of the first mode), Newton tolerance 1e-9 N.
fn free_vibration(c: &mut Criterion) {
    let sec = SectionProperties {
        rho_a: 1.0,
        rho_i: 0.1,
        ea: 1e3,
        ga: 4e2,
        ei: 1.0,
    };
    let mut spec = BeamSpec::cantilever(1.0, sec, 64, 1);
    spec.point_loads.push(PointLoad {
        node: 64,
        force: [0.0, 4.0],
        moment: 0.0,
        time_function: TimeFunction::Constant,
    });
    let newton = NewtonParams {
        tolerance: 1e-9,
        max_iterations: 30,
    };
    let loaded = BeamModel::try_new(spec.clone()).unwrap();
    let x0 = solve_static(&loaded, 8, &newton).unwrap().pop().unwrap().x;
    spec.point_loads.clear();
    let model = BeamModel::try_new(spec).unwrap();
    let v0 = vec![0.0; model.n_dofs()];
    let (dt, steps) = (1e-3, 10_000);
    for (name, rotation) in [
        (
            "free_vibration_64x1_1e4_steps_stepper_cayley",
            RotationIncrement::Cayley,
        ),
        (
            "free_vibration_64x1_1e4_steps_stepper_additive",
            RotationIncrement::Additive,
        ),
    ] {
        c.bench_function(name, |b| {
            b.iter(|| {
                let mut st = EnergyMomentumStepper::new(&model, &x0, &v0, 0.0, dt, newton)
                    .unwrap()
                    .with_rotation_increment(rotation);
                for _ in 0..steps {
                    st.step().unwrap();
                }
                black_box(st.node(64))
            })
        });
    }
    c.bench_function("free_vibration_64x1_1e4_slabs_space_time", |b| {
        b.iter(|| {
            let settings = SpaceTimeSettings {
                newton,
                ..Default::default()
            };
            let mut st = SpaceTimeSolver::new(&model, &x0, &v0, 0.0, dt, settings).unwrap();
            for _ in 0..steps {
                st.step().unwrap();
            }
            black_box(st.node(64))
        })
    });
}

/// The cantilever of [`free_vibration`] with 512 quadratic elements (3075 unknowns), hit by a
/// tip pulse; 20 steps of 2 ms from rest with each integrator on 1 and 2 threads.
fn parallel(c: &mut Criterion) {
    let sec = SectionProperties {
        rho_a: 1.0,
        rho_i: 0.1,
        ea: 1e3,
        ga: 4e2,
        ei: 1.0,
    };
    let n = 512;
    let mut spec = BeamSpec::cantilever(1.0, sec, n, 2);
    spec.point_loads.push(PointLoad {
        node: 2 * n,
        force: [0.0, 4.0],
        moment: 0.0,
        time_function: TimeFunction::Table {
            times: vec![0.0, 0.02, 0.04],
            values: vec![0.0, 1.0, 0.0],
        },
    });
    let model = BeamModel::try_new(spec).unwrap();
    let newton = NewtonParams {
        tolerance: 1e-9,
        max_iterations: 30,
    };
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        c.bench_function(
            &format!("cantilever_512xp2_20_steps_stepper_{threads}_threads"),
            |b| {
                b.iter(|| {
                    pool.install(|| {
                        let mut st = EnergyMomentumStepper::at_rest(&model, 2e-3, newton).unwrap();
                        for _ in 0..20 {
                            st.step().unwrap();
                        }
                        black_box(st.node(2 * n))
                    })
                })
            },
        );
        c.bench_function(
            &format!("cantilever_512xp2_20_slabs_space_time_{threads}_threads"),
            |b| {
                b.iter(|| {
                    pool.install(|| {
                        let settings = SpaceTimeSettings {
                            newton,
                            ..Default::default()
                        };
                        let mut st = SpaceTimeSolver::at_rest(&model, 2e-3, settings).unwrap();
                        for _ in 0..20 {
                            st.step().unwrap();
                        }
                        black_box(st.node(2 * n))
                    })
                })
            },
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_group! {
    name = long;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(1))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = free_vibration, parallel
}
criterion_main!(benches, long);
