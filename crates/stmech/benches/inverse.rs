//! Benchmark of the inverse beam solvers on `[I]` Example 3.2 (log law, Eq. 35 corrected,
//! t = [0, 6] s, time step from the wave speeds):
//!
//! * `example_3_2_20x120`: space-time FEM, 20 × 120 (actuation error 1.14e-2 against the
//!   characteristics on 320 × 1920);
//! * `characteristics_8x48`: method of characteristics at equal accuracy (error 9.5e-3);
//! * `characteristics_20x120`: method of characteristics on the FEM's mesh (error 1.1e-3).
//!
//! Run with `cargo bench -p stmech --bench inverse`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use stmech::beam::section::ConstitutiveLaw;
use stmech::inverse::{
    BeamModel, CharacteristicsSettings, NewtonSettings, RestToRestArc, SpaceTimeMesh,
    solve_characteristics, solve_inverse,
};

fn example_3_2(c: &mut Criterion) {
    let beam = BeamModel::example_3_2(ConstitutiveLaw::Log);
    let mesh = SpaceTimeMesh::auto(&beam, 0.0, 6.0, 20);
    let tr = RestToRestArc::example_3_2();
    let mut g = c.benchmark_group("inverse");
    g.sample_size(10);
    g.bench_function("example_3_2_20x120", |b| {
        b.iter(|| black_box(solve_inverse(&beam, &mesh, &tr, &NewtonSettings::default()).unwrap()))
    });
    for n in [8, 20] {
        let mesh = SpaceTimeMesh::auto(&beam, 0.0, 6.0, n);
        g.bench_function(format!("characteristics_{n}x{}", mesh.elements_t), |b| {
            b.iter(|| {
                black_box(
                    solve_characteristics(&beam, &mesh, &tr, &CharacteristicsSettings::default())
                        .unwrap(),
                )
            })
        });
    }
    g.finish();
}

criterion_group!(benches, example_3_2);
criterion_main!(benches);
