//! Benchmark of the space-time inverse beam solver on `[I]` Example 3.2 (log law, Eq. 35
//! corrected, t = [0, 6] s, 20 space elements, time step from the wave speeds: 20 × 120).
//!
//! Run with `cargo bench -p stmech --bench inverse`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use stmech::beam::section::ConstitutiveLaw;
use stmech::inverse::{BeamModel, NewtonSettings, RestToRestArc, SpaceTimeMesh, solve_inverse};

fn example_3_2(c: &mut Criterion) {
    let beam = BeamModel::example_3_2(ConstitutiveLaw::Log);
    let mesh = SpaceTimeMesh::auto(&beam, 0.0, 6.0, 20);
    let tr = RestToRestArc::example_3_2();
    let mut g = c.benchmark_group("inverse");
    g.sample_size(10);
    g.bench_function("example_3_2_20x120", |b| {
        b.iter(|| black_box(solve_inverse(&beam, &mesh, &tr, &NewtonSettings::default()).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, example_3_2);
criterion_main!(benches);
