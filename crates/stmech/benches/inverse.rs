//! Benchmark of the inverse beam solvers on `[I]` Example 3.2 (log law, Eq. 35 corrected,
//! t = [0, 6] s, time step from the wave speeds, μ = 1: `n_s × 6 n_s` elements).
//!
//! * `sideways/NSxNT`: the space-time FEM with its default linear solver (sideways block
//!   elimination) at 20 × 120, 32 × 192, 64 × 384 (issue 5's target: ≤ 1 s) and 128 × 768, to
//!   show how the time grows when both resolutions double (4× the unknowns);
//! * `sparse_lu/20x120`: the same FEM with faer's general sparse LU, the baseline of the
//!   sideways elimination;
//! * `characteristics_NSxNT`: the method of characteristics on 8 × 48 (equal accuracy to the
//!   FEM on 20 × 120: actuation error 9.5e-3 vs 1.14e-2 against the characteristics on
//!   320 × 1920) and on the FEM's 20 × 120 mesh (error 1.1e-3);
//! * `space_time_Tthreads/NSxNT`: what `stmech run` solves, `solve_space_time` (Newton started
//!   from the characteristics on the quarter mesh) at 64 × 384 and 128 × 768, in rayon pools of
//!   1 and 2 threads: the ratio of the two is the parallel speed-up of the streamed sideways
//!   solve (identical results, `tests/parallel_assembly.rs`).
//!
//! * `spatial/…` (issue 16): the spatial beam's kernels (a stiffness point with its Hessian, a
//!   rotary-inertia point with its Jacobians, one element's residual and tangent) and the
//!   space-time FEM of the helix-with-twist manoeuvre (`SpatialBeam::helix_example`) at
//!   32 × 192 and 64 × 384 beside the planar Example 3.2 (quadratic law, Newton from rest,
//!   `solve_inverse`) on the same meshes: the spatial-to-planar ratio of the solve.
//!
//! Run with `cargo bench -p stmech --bench inverse` (`-- spatial` for the spatial group only).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use stmech::beam::section::ConstitutiveLaw;
use stmech::inverse::{
    BeamModel, CharacteristicsSettings, LinearSolverKind, NewtonSettings, RestToRestArc,
    SpaceTimeMesh, solve_characteristics, solve_inverse, solve_space_time,
};

fn example_3_2(c: &mut Criterion) {
    let beam = BeamModel::example_3_2(ConstitutiveLaw::Log);
    let tr = RestToRestArc::example_3_2();
    let mut g = c.benchmark_group("inverse");
    g.sample_size(10);
    for (ns, kind) in [
        (20, LinearSolverKind::SparseLu),
        (20, LinearSolverKind::Sideways),
        (32, LinearSolverKind::Sideways),
        (64, LinearSolverKind::Sideways),
        (128, LinearSolverKind::Sideways),
    ] {
        let mesh = SpaceTimeMesh::auto(&beam, 0.0, 6.0, ns);
        let settings = NewtonSettings {
            linear_solver: kind,
            ..NewtonSettings::default()
        };
        let name = match kind {
            LinearSolverKind::Sideways => "sideways",
            LinearSolverKind::SparseLu => "sparse_lu",
        };
        // One solve outside the timing loop: its Newton history says where the time goes.
        let sol = solve_inverse(&beam, &mesh, &tr, &settings).unwrap();
        eprintln!(
            "{name} {}x{}: {} unknowns, {} Newton iterations, assembly {:.3} s, linear {:.3} s",
            mesh.elements_s,
            mesh.elements_t,
            sol.newton.unknowns,
            sol.newton.iterations,
            sol.newton.assembly_seconds,
            sol.newton.linear_seconds
        );
        g.bench_function(
            format!("{name}/{}x{}", mesh.elements_s, mesh.elements_t),
            |b| b.iter(|| black_box(solve_inverse(&beam, &mesh, &tr, &settings).unwrap())),
        );
    }
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
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        for ns in [64, 128] {
            let mesh = SpaceTimeMesh::auto(&beam, 0.0, 6.0, ns);
            let settings = NewtonSettings::default();
            let sol = pool.install(|| solve_space_time(&beam, &mesh, &tr, &settings).unwrap());
            eprintln!(
                "space_time {threads} thread(s) {}x{}: {} Newton iterations, start {:.3} s, \
                 stress points {:.3} s, columns {:.3} s (summed over threads)",
                mesh.elements_s,
                mesh.elements_t,
                sol.newton.iterations,
                sol.newton.start_seconds,
                sol.newton.assembly_seconds,
                sol.newton.linear_seconds
            );
            g.bench_function(
                format!(
                    "space_time_{threads}threads/{}x{}",
                    mesh.elements_s, mesh.elements_t
                ),
                |b| {
                    b.iter(|| {
                        pool.install(|| {
                            black_box(solve_space_time(&beam, &mesh, &tr, &settings).unwrap())
                        })
                    })
                },
            );
        }
    }
    g.finish();
}

fn spatial(c: &mut Criterion) {
    use stmech::inverse::element::{BilinearElement, PointLaw, SpaceTimeElement, element_dofs};
    use stmech::inverse::spatial::law::SpatialPointLaw;
    use stmech::inverse::spatial::{SpatialBeam, solve_space_time as solve_spatial};
    let arm = SpatialBeam::helix_example(1.0);
    let path = arm.helix_example_path();
    let law = SpatialPointLaw::new(&arm.section, arm.frame);
    let mut g = c.benchmark_group("spatial");
    let (x, p) = (
        [0.1, 0.2, -0.3, 0.4, -0.7, 0.5],
        [0.3, -0.2, 1.05, 0.2, 0.5, -0.4],
    );
    let (v, a) = (
        [0.2, 0.1, -0.4, 0.6, -0.3, 0.2],
        [0.5, -0.2, 0.1, -0.4, 0.8, 0.3],
    );
    g.bench_function("stress_point_tangent", |b| {
        b.iter(|| {
            black_box(
                law.stress_point(black_box(&x), black_box(&p), true)
                    .unwrap(),
            )
        })
    });
    g.bench_function("inertia_point_tangent", |b| {
        b.iter(|| black_box(law.inertia_point(black_box(&x), black_box(&v), black_box(&a), true)))
    });
    let el = BilinearElement::with_law(law, 1.0 / 32.0, 1.0 / 32.0);
    let nd = element_dofs(6);
    let q: Vec<f64> = (0..nd).map(|i| 0.05 * (i as f64 * 1.3).sin()).collect();
    let (mut r, mut k) = (vec![0.0; nd], vec![0.0; nd * nd]);
    g.bench_function("element_residual_tangent", |b| {
        b.iter(|| {
            el.residual_into(black_box(&q), &mut r, Some(&mut k))
                .unwrap();
            black_box(&k);
        })
    });
    g.sample_size(10);
    let planar = BeamModel::example_3_2(ConstitutiveLaw::Quadratic);
    let arc = RestToRestArc::example_3_2();
    let settings = NewtonSettings::default();
    for ns in [32, 64] {
        let mesh = SpaceTimeMesh::auto(&planar, 0.0, 6.0, ns);
        let sol = solve_spatial(&arm, &mesh, &path, &settings).unwrap();
        eprintln!(
            "spatial {}x{}: {} unknowns, {} Newton iterations, points {:.3} s, columns {:.3} s",
            mesh.elements_s,
            mesh.elements_t,
            sol.newton.unknowns,
            sol.newton.iterations,
            sol.newton.assembly_seconds,
            sol.newton.linear_seconds
        );
        g.bench_function(
            format!("helix/{}x{}", mesh.elements_s, mesh.elements_t),
            |b| b.iter(|| black_box(solve_spatial(&arm, &mesh, &path, &settings).unwrap())),
        );
        g.bench_function(
            format!("planar/{}x{}", mesh.elements_s, mesh.elements_t),
            |b| b.iter(|| black_box(solve_inverse(&planar, &mesh, &arc, &settings).unwrap())),
        );
    }
    g.finish();
}

criterion_group!(benches, example_3_2, spatial);
criterion_main!(benches);
