//! Benchmarks of the space-time rigid-body core on the rectangular-load example of [P, §4.1]
//! (box 2 × 1 × 1, ρ₀ = 1.5, torque (1, 1, 1) N·m on [0.5, 1.5] s, T = [0, 4] s).
//!
//! * `p1_1000_elements/blocks/{1,20,1000}`: the paper's 1000 linear elements (12.5 s reported
//!   there) in the default Petrov–Galerkin form, as one block, 20 blocks of 50 and 1000 blocks of
//!   one element (same discrete solution, `docs/theory.md` §3a); `bubnov_blocks/20` is the
//!   paper's form of Eq. (23) for comparison.
//! * `p1_one_element_blocks/{1000,10000,100000}`: cost growth with the number of elements
//!   (must be linear).
//! * `midpoint/1000_steps`: the time-stepping baseline at the same number of steps.
//!
//! Run with `cargo bench -p stmech`. Report times as ratios within one run (shared machine).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use stmech::model::{Load, LoadKind, MassProperties, MultibodySystem, RigidBody, TimeFunction};
use stmech::solve::NewtonParams;
use stmech::solve::scheme::{Formulation, Method, SpaceTimeParams, ThetaScheme, simulate};

fn system() -> MultibodySystem {
    let d = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let body = RigidBody {
        name: "box".into(),
        mass: MassProperties::from_box([2.0, 1.0, 1.0], 1.5, [0.0; 3]),
        position: [0.0; 3],
        directors: d,
        velocity: [5.0; 3],
        director_velocities: [[0.0; 3]; 3],
    };
    let torque = Load {
        body: 0,
        kind: LoadKind::Torque([1.0; 3]),
        time_function: TimeFunction::Window {
            start: 0.5,
            end: 1.5,
        },
    };
    MultibodySystem::new(vec![body], vec![torque], vec![]).expect("valid model")
}

fn solve(sys: &MultibodySystem, method: &Method) -> f64 {
    let (q0, v0) = sys.initial_state();
    let traj = simulate(
        sys,
        &q0,
        &v0,
        0.0,
        4.0,
        method,
        &NewtonParams::default(),
        &mut |_| {},
    )
    .expect("converges");
    traj.q_final()[3]
}

fn st(elements_per_block: usize, blocks: usize) -> Method {
    st_form(elements_per_block, blocks, Formulation::PetrovGalerkin)
}

fn st_form(elements_per_block: usize, blocks: usize, formulation: Formulation) -> Method {
    Method::SpaceTime(SpaceTimeParams {
        order: 1,
        elements_per_block,
        blocks,
        quadrature_points: None,
        formulation,
    })
}

fn benches(c: &mut Criterion) {
    let sys = system();
    let mut g = c.benchmark_group("p1_1000_elements");
    g.sample_size(10);
    for blocks in [1usize, 20, 1000] {
        g.bench_with_input(BenchmarkId::new("blocks", blocks), &blocks, |b, &blocks| {
            let m = st(1000 / blocks, blocks);
            b.iter(|| black_box(solve(&sys, &m)))
        });
    }
    g.bench_function(BenchmarkId::new("bubnov_blocks", 20), |b| {
        let m = st_form(50, 20, Formulation::Bubnov);
        b.iter(|| black_box(solve(&sys, &m)))
    });
    g.finish();
    let mut g = c.benchmark_group("p1_one_element_blocks");
    g.sample_size(10);
    for n in [1000usize, 10000, 100000] {
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            let m = st(1, n);
            b.iter(|| black_box(solve(&sys, &m)))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("midpoint");
    g.sample_size(10);
    g.bench_function("1000_steps", |b| {
        let m = Method::TimeStepping {
            scheme: ThetaScheme::MIDPOINT,
            step: 4e-3,
        };
        b.iter(|| black_box(solve(&sys, &m)))
    });
    g.finish();
}

criterion_group!(rigid_body, benches);
criterion_main!(rigid_body);
