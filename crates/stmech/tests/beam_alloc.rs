//! The beam element kernels do not allocate, and neither do the time steps of both forward
//! integrators: the beam Jacobian (nodes numbered along the beam) is factorised by the banded
//! LU of `solve::linear`, which works in storage allocated once. (With faer's supernodal
//! sparse LU, used before, each factorisation allocated a fixed number of small per-supernode
//! index buffers: 10 for 16 linear elements, 37 for 64.) (issue 4, item 3). A counting global allocator
//! with a per-thread counter (tests run on parallel threads) measures it.
//!
//! On meshes of `PARALLEL_MIN_ELEMENTS` or more elements the element terms are computed in
//! parallel (issue 14) into buffers allocated once: steps taken on a rayon worker thread still
//! allocate nothing; steps called from outside the pool hand each parallel pass to rayon's
//! global job queue, which allocates a block now and then (about one per 40–60 passes; asserted
//! bound: one per 20).
//!
//! The one exception is Newton's report ([`stmech::solve::NewtonReport`], issue 29): the
//! relative residual history of every solve is a small vector of a few entries, whatever the
//! mesh; a step makes 1–4 solves (a retry from the plain predictor, rounds of the adaptive time
//! rule), each history growing at most twice (measured: 82 in 20 slabs of order 1). The bound [`REPORT_ALLOCATIONS_PER_STEP`] is asserted instead of 0.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use stmech::beam::cayley;
use stmech::beam::dynamics::EnergyMomentumStepper;
use stmech::beam::element::{BeamElement, MAX_DOFS};
use stmech::beam::model::*;
use stmech::beam::section::*;
use stmech::beam::space_time::{SpaceTimeSettings, SpaceTimeSolver};
use stmech::model::load::TimeFunction;
use stmech::solve::NewtonParams;

/// Allocations of Newton's reports per step at most (see the module docs; independent of the
/// mesh, unlike the per-supernode buffers that this test was written against).
const REPORT_ALLOCATIONS_PER_STEP: usize = 8;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

struct Counting;

fn count() {
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: forwards to the system allocator; the counter is a const-initialised thread-local
// `Cell` without destructor, which itself never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by `f` on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

fn model(order: usize) -> BeamModel {
    let sec = SectionProperties {
        rho_a: 1.0,
        rho_i: 0.1,
        ea: 1e3,
        ga: 4e2,
        ei: 1.0,
    };
    let mut spec = BeamSpec::cantilever(1.0, sec, 16, order);
    spec.law = ConstitutiveLaw::Log;
    spec.point_loads.push(PointLoad {
        node: 16 * order,
        force: [0.0, 2.0],
        moment: 0.5,
        time_function: TimeFunction::Table {
            times: vec![0.0, 0.05, 0.1],
            values: vec![0.0, 1.0, 0.0],
        },
    });
    BeamModel::try_new(spec).unwrap()
}

#[test]
fn element_kernels_do_not_allocate() {
    for order in [1, 2] {
        let m = model(order);
        let el = m.element(0);
        let nd = m.element_dofs();
        let x0: Vec<f64> = (0..nd).map(|i| 0.1 * i as f64).collect();
        let x1: Vec<f64> = x0.iter().map(|v| v + 0.05).collect();
        let (mut f, mut k) = ([0.0; MAX_DOFS], [[0.0; MAX_DOFS]; MAX_DOFS]);
        let n = allocations(|| {
            for _ in 0..10 {
                el.energy(&x0).unwrap();
                el.residual_into(&x0, &mut f, Some(&mut k)).unwrap();
                el.discrete_gradient_into(&x0, &x1, &mut f).unwrap();
                cayley::discrete_gradient_into(&el, &x0, &x1, &mut f).unwrap();
            }
        });
        assert_eq!(
            n, 0,
            "order {order}: {n} allocations in the element kernels"
        );
    }
}

/// Allocations of one numeric LU factorisation of the beam Jacobian.
fn lu_allocations(m: &BeamModel) -> usize {
    use stmech::beam::assembly::BeamAssembler;
    let mut asm = BeamAssembler::new(m).unwrap();
    for i in 0..m.n_dofs() {
        asm.add_diagonal(i, 2.0 + i as f64);
    }
    let mut r = vec![1.0; m.n_dofs()];
    asm.factorize().unwrap();
    asm.lu.solve_in_place(&mut r);
    let values = asm.values.clone();
    let n = allocations(|| asm.lu.factorize(&values).unwrap());
    assert_eq!(allocations(|| asm.lu.solve_in_place(&mut r)), 0);
    n
}

#[test]
fn time_steps_allocate_only_in_the_lu() {
    let newton = NewtonParams {
        tolerance: 1e-10,
        max_iterations: 30,
    };
    for order in [1, 2] {
        let m = model(order);
        let per_lu = lu_allocations(&m);
        eprintln!("order {order}: {per_lu} allocations per numeric LU factorisation");
        assert_eq!(per_lu, 0, "the banded LU allocates nothing");
        let mut em = EnergyMomentumStepper::at_rest(&m, 0.01, newton).unwrap();
        em.step().unwrap();
        let mut factorisations = 0;
        let n = allocations(|| {
            for _ in 0..20 {
                em.step().unwrap();
                factorisations += em.last_iterations;
            }
        });
        assert!(
            n <= per_lu * factorisations + 20 * REPORT_ALLOCATIONS_PER_STEP,
            "order {order}: {n} allocations in 20 stepper steps ({factorisations} LUs)"
        );
        let settings = SpaceTimeSettings {
            newton,
            ..Default::default()
        };
        let mut st = SpaceTimeSolver::at_rest(&m, 0.01, settings).unwrap();
        st.step().unwrap();
        let mut factorisations = 0;
        let n = allocations(|| {
            for _ in 0..20 {
                st.step().unwrap();
                factorisations += st.last_iterations();
            }
        });
        assert!(
            n <= per_lu * factorisations + 20 * REPORT_ALLOCATIONS_PER_STEP,
            "order {order}: {n} allocations in 20 space-time slabs ({factorisations} LUs)"
        );
        assert!(st.diagnostics().kinetic > 0.0);
    }
}

/// The parallel element passes (issue 14) allocate nothing on a worker thread, and from
/// outside the pool only rayon's job queue allocates, a bounded amount.
#[test]
fn parallel_time_steps_do_not_allocate() {
    use stmech::beam::assembly::{ElementPass, PARALLEL_MIN_ELEMENTS};
    let newton = NewtonParams {
        tolerance: 1e-10,
        max_iterations: 30,
    };
    let sec = SectionProperties {
        rho_a: 1.0,
        rho_i: 0.1,
        ea: 1e3,
        ga: 4e2,
        ei: 1.0,
    };
    let n_el = 2 * PARALLEL_MIN_ELEMENTS;
    let mut spec = BeamSpec::cantilever(1.0, sec, n_el, 2);
    spec.point_loads.push(PointLoad {
        node: 2 * n_el,
        force: [0.0, 2.0],
        moment: 0.5,
        time_function: TimeFunction::Table {
            times: vec![0.0, 0.05, 0.1],
            values: vec![0.0, 1.0, 0.0],
        },
    });
    let m = BeamModel::try_new(spec).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let settings = SpaceTimeSettings {
        newton,
        ..Default::default()
    };
    let (em_alloc, st_alloc) = pool.install(|| {
        assert!(ElementPass::new(n_el).is_parallel());
        let mut em = EnergyMomentumStepper::at_rest(&m, 2e-3, newton).unwrap();
        em.step().unwrap();
        let em_alloc = allocations(|| {
            for _ in 0..20 {
                em.step().unwrap();
            }
        });
        let mut st = SpaceTimeSolver::at_rest(&m, 2e-3, settings).unwrap();
        st.step().unwrap();
        let st_alloc = allocations(|| {
            for _ in 0..20 {
                st.step().unwrap();
            }
        });
        (em_alloc, st_alloc)
    });
    assert!(
        em_alloc <= 20 * REPORT_ALLOCATIONS_PER_STEP
            && st_alloc <= 20 * REPORT_ALLOCATIONS_PER_STEP,
        "allocations on a worker thread: {em_alloc}, {st_alloc}"
    );
    // from outside the pool (the global pool, as the CLI runs): each parallel pass is a job
    // injected into rayon's global queue, which allocates a block now and then (measured: 12
    // allocations in 200 steps of 2–4 passes each); bounded by one per 20 passes, plus
    // Newton's report (measured: about 3 per step in all)
    let mut em = EnergyMomentumStepper::at_rest(&m, 2e-3, newton).unwrap();
    em.step().unwrap();
    let outside = allocations(|| {
        for _ in 0..200 {
            em.step().unwrap();
        }
    });
    eprintln!("200 steps from outside the pool: {outside} allocations");
    assert!(
        outside <= 200 * 4 / 20 + 200 * REPORT_ALLOCATIONS_PER_STEP,
        "{outside} allocations in 200 steps"
    );
}
