//! Benchmarks of flexible multibody dynamics (issue 15, item 7): the kernels of a spatial
//! director beam in the space-time Petrov–Galerkin form and one Newton step of a time element
//! of the whole beam, for beams of 8 … 128 quadratic elements.
//!
//! * `strain_point`: strains, `B`, stress and stress Hessian at one strain point of a
//!   quadratic beam element;
//! * `pg_time_element`: the enhanced-strain terms of one beam element on one cG(1) time element
//!   (`StrainTime::slot_terms`), residual only and with the tangent;
//! * per beam size `n` (the flying spaghetti of `examples/flexible/02_flying_spaghetti_3d.toml`
//!   with `n` elements, spinning, p = 1, h = 1 ms): `residual/n` and `jacobian/n` (assembly of
//!   the condensed time element), `factorize/n` and `solve/n` (the linear solver
//!   `LinearSolver::for_pattern` picks), `newton_step/n` (assembly with the Jacobian,
//!   factorisation and solve: one Newton–Raphson iteration) and `chord_step/n` (residual and
//!   solve with a kept factorisation: one chord iteration); `factorize_{banded,sparse}/n` and
//!   `solve_{banded,sparse}/n` compare the banded and the sparse LU on the same matrix.
//!
//! Run with `cargo bench -p stmech --bench flexible` (a few minutes).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use stmech::discretize::CondensedElement;
use stmech::discretize::strain_time::StrainTime;
use stmech::model::director_beam::section::{DiagonalStiffness, SectionInertia};
use stmech::model::director_beam::{BeamSpec, ConstantCurvature, Integration, Section};
use stmech::model::{ConstrainedSystem, Deformable, Load, LoadKind, MultibodySystem, TimeFunction};
use stmech::solve::linear::{BandedCsc, LinearSolver, SparseLu};

fn section() -> Section {
    Section::from_diagonal(
        DiagonalStiffness {
            ea: 1e4,
            ga1: 1e4,
            ga2: 1e4,
            ei1: 500.0,
            ei2: 500.0,
            gj: 500.0,
        },
        SectionInertia {
            rho_a: 1.0,
            euler_tensor: [[10.0, 0.0], [0.0, 10.0]],
        },
    )
    .unwrap()
}

/// The flying spaghetti with `n` quadratic elements, spinning.
fn beam(n: usize) -> Deformable {
    let frame = [[0.0, 1.0, 0.0], [-0.8, 0.0, -0.6], [-0.6, 0.0, 0.8]];
    BeamSpec {
        name: "spaghetti".into(),
        order: 2,
        nodes: ConstantCurvature::straight([6.0, 0.0, 0.0], frame).nodes(10.0, n, 2),
        section: section(),
        integration: Integration::Reduced,
        velocity: [0.5, 0.0, 0.2],
        angular_velocity: [0.3, -0.4, 0.2],
        distributed: vec![],
        gravity: None,
    }
    .build()
    .unwrap()
}

fn system(n: usize) -> MultibodySystem {
    let ramp = TimeFunction::Table {
        times: vec![0.0, 2.5, 5.0],
        values: vec![0.0, 1.0, 0.0],
    };
    let loads = vec![
        Load {
            body: 0,
            kind: LoadKind::Force([20.0, 0.0, 0.0]),
            time_function: ramp.clone(),
        },
        Load {
            body: 0,
            kind: LoadKind::Torque([0.0, -200.0, 100.0]),
            time_function: ramp,
        },
    ];
    MultibodySystem::with_deformables(vec![], vec![beam(n)], loads, vec![]).unwrap()
}

fn kernels(c: &mut Criterion) {
    let sys = system(8);
    let slot = &sys.strain_slots()[0];
    let el = slot.element.as_ref();
    let nl = el.n_loc();
    let (q0, v0) = sys.initial_state();
    let h = 1e-3;
    let local = |q: &[f64]| -> Vec<f64> { slot.indices.iter().map(|&i| q[i]).collect() };
    let ql0 = local(&q0);
    let mut nodes = ql0.clone();
    nodes.extend(
        local(&q0)
            .iter()
            .zip(local(&v0))
            .map(|(q, v)| q + h * v + 1e-4),
    );
    c.bench_function("strain_point", |b| {
        let (mut pi, mut bm, mut hm) = ([0.0; 6], vec![0.0; 6 * nl], vec![0.0; nl * nl]);
        b.iter(|| {
            el.strains_into(0, black_box(&nodes[nl..]), &mut pi, Some(&mut bm));
            let cm = el.stiffness(0);
            let mut s = [0.0; 6];
            for k in 0..6 {
                s[k] = (0..6).map(|l| cm[k][l] * pi[l]).sum();
            }
            el.add_stress_hessian(0, &s, 1.0, &mut hm);
            black_box((&bm, &hm));
        })
    });
    let st = StrainTime::new(1, nl);
    let (mut sc, mut terms) = (st.scratch(), st.terms(1));
    c.bench_function("pg_time_element/residual", |b| {
        b.iter(|| st.slot_terms(el, h, black_box(&nodes), 1, false, &mut sc, &mut terms))
    });
    c.bench_function("pg_time_element/tangent", |b| {
        b.iter(|| st.slot_terms(el, h, black_box(&nodes), 1, true, &mut sc, &mut terms))
    });
}

fn newton_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("beam");
    group.sample_size(20);
    for n in [8usize, 16, 32, 64, 128] {
        let sys = system(n);
        let (q0, v0) = sys.initial_state();
        let h = 1e-3;
        let mut el = CondensedElement::new(&sys, 1, h, 1);
        let mut x = vec![0.0; el.n_unknowns()];
        let q1: Vec<f64> = q0.iter().zip(&v0).map(|(q, v)| q + h * v).collect();
        el.set_node(&mut x, 1, &q0, &q1);
        el.set_multipliers(&mut x, &vec![0.1; sys.n_lambda()]);
        let mut r = vec![0.0; x.len()];
        let mut vals = vec![0.0; el.pattern().nnz()];
        let t0 = 1.0;
        el.assemble(t0, &q0, &v0, &x, &mut r, Some(&mut vals));
        let mut lu = LinearSolver::for_pattern(el.pattern().clone()).unwrap();
        let kind = match &lu {
            LinearSolver::Dense(_) => "dense",
            LinearSolver::Banded(_) => "banded",
            LinearSolver::Sparse(_) => "sparse",
        };
        eprintln!(
            "beam of {n} elements: {} unknowns, {} non-zeros, half-bandwidths {:?}, solver {kind}",
            el.n_unknowns(),
            el.pattern().nnz(),
            BandedCsc::half_bandwidths(el.pattern())
        );
        lu.factorize(&vals).unwrap();
        group.bench_with_input(BenchmarkId::new("residual", n), &n, |b, _| {
            b.iter(|| el.assemble(t0, &q0, &v0, black_box(&x), &mut r, None))
        });
        group.bench_with_input(BenchmarkId::new("jacobian", n), &n, |b, _| {
            b.iter(|| el.assemble(t0, &q0, &v0, black_box(&x), &mut r, Some(&mut vals)))
        });
        group.bench_with_input(BenchmarkId::new("factorize", n), &n, |b, _| {
            b.iter(|| lu.factorize(black_box(&vals)).unwrap())
        });
        let rhs = r.clone();
        group.bench_with_input(BenchmarkId::new("solve", n), &n, |b, _| {
            b.iter(|| {
                r.copy_from_slice(&rhs);
                lu.solve_in_place(black_box(&mut r))
            })
        });
        group.bench_with_input(BenchmarkId::new("newton_step", n), &n, |b, _| {
            b.iter(|| {
                el.assemble(t0, &q0, &v0, black_box(&x), &mut r, Some(&mut vals));
                lu.factorize(&vals).unwrap();
                lu.solve_in_place(&mut r);
            })
        });
        group.bench_with_input(BenchmarkId::new("chord_step", n), &n, |b, _| {
            b.iter(|| {
                el.assemble(t0, &q0, &v0, black_box(&x), &mut r, None);
                lu.solve_in_place(&mut r);
            })
        });
        let pattern = el.pattern().clone();
        let mut banded = LinearSolver::Banded(BandedCsc::new(
            pattern.clone(),
            BandedCsc::half_bandwidths(&pattern),
        ));
        group.bench_with_input(BenchmarkId::new("factorize_banded", n), &n, |b, _| {
            b.iter(|| banded.factorize(black_box(&vals)).unwrap())
        });
        let mut sparse = LinearSolver::Sparse(Box::new(SparseLu::new(pattern).unwrap()));
        group.bench_with_input(BenchmarkId::new("factorize_sparse", n), &n, |b, _| {
            b.iter(|| sparse.factorize(black_box(&vals)).unwrap())
        });
        banded.factorize(&vals).unwrap();
        sparse.factorize(&vals).unwrap();
        for (name, lu) in [("solve_banded", &mut banded), ("solve_sparse", &mut sparse)] {
            group.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                b.iter(|| {
                    r.copy_from_slice(&rhs);
                    lu.solve_in_place(black_box(&mut r))
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, kernels, newton_step);
criterion_main!(benches);
