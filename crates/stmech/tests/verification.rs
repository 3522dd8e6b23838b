//! Verification of the rigid-body space-time core against references it was not tuned to.
//!
//! * `[P, §4.1]` rectangular and constant torque on a free box: compared with an independent
//!   Gauss-collocation (order 12) integration of `Ṙ = R Ω̂`, `J Ω̇ + Ω × JΩ = Rᵀ m` in
//!   `common/reference.rs`, which shares no code with the library.
//! * Convergence orders of the error of `[P, Eq. (26)]` over four meshes.
//! * Conservation of energy and angular momentum for the torque-free body, and convergence
//!   of the weakly enforced orthonormality constraint.
//!
//! Measured numbers are recorded in `docs/verification.md`.

mod common;

use common::reference::{RigidBodyRef, TorqueWindow, integrate};
use stmech::model::{
    ConstrainedSystem, Load, LoadKind, MassProperties, MultibodySystem, RigidBody, TimeFunction,
};
use stmech::solve::scheme::{Formulation, Method, SpaceTimeParams, ThetaScheme, simulate};
use stmech::solve::{NewtonParams, Trajectory};

const I3: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// The box of [P, §4.1]: 2 × 1 × 1, ρ₀ = 1.5 (M = 3, J = diag(0.5, 1.25, 1.25)).
fn paper_box(velocity: [f64; 3], omega: [f64; 3]) -> RigidBody {
    RigidBody {
        name: "box".into(),
        mass: MassProperties::from_box([2.0, 1.0, 1.0], 1.5, [0.0; 3]),
        position: [0.0; 3],
        directors: I3,
        velocity,
        director_velocities: RigidBody::director_velocities_from_angular_velocity(&I3, &omega),
    }
}

fn torque_system(tf: TimeFunction) -> MultibodySystem {
    let load = Load {
        body: 0,
        kind: LoadKind::Torque([1.0; 3]),
        time_function: tf,
    };
    MultibodySystem::new(vec![paper_box([5.0; 3], [0.0; 3])], vec![load], vec![]).unwrap()
}

fn reference(windows: Vec<TorqueWindow>, t_end: f64, omega: [f64; 3]) -> ([f64; 3], [[f64; 3]; 3]) {
    let body = RigidBodyRef {
        mass: 3.0,
        inertia_body: [[0.5, 0.0, 0.0], [0.0, 1.25, 0.0], [0.0, 0.0, 1.25]],
        x0: [0.0; 3],
        v0: [5.0; 3],
        r0: I3,
        omega_body0: omega,
        torques: windows,
    };
    let s = integrate(&body, t_end, 1e-13);
    (s.x, s.directors)
}

fn run(sys: &MultibodySystem, t_end: f64, method: Method) -> Trajectory {
    let (q0, v0) = sys.initial_state();
    simulate(
        sys,
        &q0,
        &v0,
        0.0,
        t_end,
        &method,
        &NewtonParams::default(),
        &mut |_| {},
    )
    .expect("solver converges")
}

/// Space-time method in the default Petrov–Galerkin form.
fn st(order: usize, elements_per_block: usize, blocks: usize) -> Method {
    st_form(
        order,
        elements_per_block,
        blocks,
        Formulation::PetrovGalerkin,
    )
}

fn st_form(
    order: usize,
    elements_per_block: usize,
    blocks: usize,
    formulation: Formulation,
) -> Method {
    Method::SpaceTime(SpaceTimeParams {
        order,
        elements_per_block,
        blocks,
        quadrature_points: None,
        formulation,
    })
}

/// Error of [P, Eq. (26)]: `‖φ̄ − φ̄_ref‖ + Σ_i ‖d_i − d_i,ref‖` at the final time.
fn eq26(q: &[f64], x: &[f64; 3], d: &[[f64; 3]; 3]) -> f64 {
    let n = |a: &[f64], b: &[f64; 3]| {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    };
    n(&q[..3], x)
        + (0..3)
            .map(|i| n(&q[3 + 3 * i..6 + 3 * i], &d[i]))
            .sum::<f64>()
}

/// Least-squares slope of log(err) over log(h).
fn slope(h: &[f64], e: &[f64]) -> f64 {
    let n = h.len() as f64;
    let (lx, ly): (Vec<f64>, Vec<f64>) = h.iter().zip(e).map(|(h, e)| (h.ln(), e.ln())).unzip();
    let (mx, my) = (lx.iter().sum::<f64>() / n, ly.iter().sum::<f64>() / n);
    let sxy: f64 = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = lx.iter().map(|x| (x - mx).powi(2)).sum();
    sxy / sxx
}

#[test]
fn p_sec4_1_rectangular_load_matches_independent_reference() {
    let sys = torque_system(TimeFunction::Window {
        start: 0.5,
        end: 1.5,
    });
    let (x_ref, d_ref) = reference(
        vec![TorqueWindow {
            t_start: 0.5,
            t_end: 1.5,
            torque: [1.0; 3],
        }],
        4.0,
        [0.0; 3],
    );
    for (order, epb, blocks, tol) in [(2, 50, 20, 1e-4), (1, 100, 20, 1e-3)] {
        let traj = run(&sys, 4.0, st(order, epb, blocks));
        let q = traj.q_final();
        let mut worst: f64 = 0.0;
        for i in 0..3 {
            for k in 0..3 {
                worst = worst.max((q[3 + 3 * i + k] - d_ref[i][k]).abs());
            }
        }
        eprintln!(
            "rectangular load, p = {order}, {blocks} × {epb}: max director error {worst:.2e}, COM {:?}",
            &q[..3]
        );
        assert!(
            worst < tol,
            "p = {order}: director error {worst:.3e} ≥ {tol:.0e}"
        );
        for k in 0..3 {
            // linear momentum is exact in the Galerkin form (constant test function), so the
            // centre of mass moves exactly with (5, 5, 5)
            assert!((q[k] - 20.0).abs() < 1e-9, "COM {:?}", &q[..3]);
            assert!((x_ref[k] - 20.0).abs() < 1e-12);
        }
    }
}

/// A method parametrised by the number of steps or elements on [0, 1].
type MethodOfN = Box<dyn Fn(usize) -> Method>;

fn constant_torque_reference_at(t: f64) -> ([f64; 3], [[f64; 3]; 3]) {
    reference(
        vec![TorqueWindow {
            t_start: 0.0,
            t_end: 1.0,
            torque: [1.0; 3],
        }],
        t,
        [0.0; 3],
    )
}

/// Eq. (26) errors at `T = 1` of the constant-torque example of [P, §4.1] (m = (1,1,1) on
/// [0, 1]) on four meshes; space-time runs use one block.
///
/// Expected orders: implicit Euler 1, midpoint 2; Petrov–Galerkin cG(p) `2p` at the element
/// boundaries (nodal superconvergence of Gauss collocation: 2 for p = 1, 4 for p = 2, 6 for
/// p = 3) — better than the `p + 1` of [P, Fig. 2], which holds between the nodes (see
/// `petrov_galerkin_error_inside_elements_converges_at_order_p_plus_1`). The paper's Bubnov
/// form is pinned at its measured orders: 2 for p = 1 and only 2 for p = 2 (not 3).
#[test]
fn p_eq26_convergence_orders_constant_torque() {
    let sys = torque_system(TimeFunction::Constant);
    let (x_ref, d_ref) = constant_torque_reference_at(1.0);
    let fine = vec![16usize, 32, 64, 128];
    let cases: [(&str, MethodOfN, Vec<usize>, f64); 7] = [
        (
            "implicit Euler",
            Box::new(|n| Method::TimeStepping {
                scheme: ThetaScheme::IMPLICIT_EULER,
                step: 1.0 / n as f64,
            }),
            fine.clone(),
            1.0,
        ),
        (
            "midpoint",
            Box::new(|n| Method::TimeStepping {
                scheme: ThetaScheme::MIDPOINT,
                step: 1.0 / n as f64,
            }),
            fine.clone(),
            2.0,
        ),
        (
            "space-time p=1",
            Box::new(|n| st(1, n, 1)),
            fine.clone(),
            2.0,
        ),
        (
            "space-time p=2",
            Box::new(|n| st(2, n, 1)),
            vec![4, 8, 16, 32],
            4.0,
        ),
        (
            "space-time p=3",
            Box::new(|n| st(3, n, 1)),
            vec![4, 8, 16],
            6.0,
        ),
        (
            "Bubnov p=1 [P]",
            Box::new(|n| st_form(1, n, 1, Formulation::Bubnov)),
            fine.clone(),
            1.8,
        ),
        (
            "Bubnov p=2 [P]",
            Box::new(|n| st_form(2, n, 1, Formulation::Bubnov)),
            fine.clone(),
            1.9,
        ),
    ];
    let mut table = String::from("method,h,err_eq26\n");
    for (name, method, ns, expected) in &cases {
        let h: Vec<f64> = ns.iter().map(|&n| 1.0 / n as f64).collect();
        let errs: Vec<f64> = ns
            .iter()
            .map(|&n| eq26(run(&sys, 1.0, method(n)).q_final(), &x_ref, &d_ref))
            .collect();
        for (hh, e) in h.iter().zip(&errs) {
            table.push_str(&format!("{name},{hh:e},{e:e}\n"));
        }
        let s = slope(&h, &errs);
        eprintln!(
            "{name}: h {h:?} errors {:?}, slope {s:.2}",
            errs.iter().map(|e| format!("{e:.3e}")).collect::<Vec<_>>()
        );
        assert!(
            (s - expected).abs() < 0.3,
            "{name}: slope {s:.2}, expected {expected}"
        );
        assert!(
            errs.windows(2).all(|w| w[1] < w[0]),
            "{name}: error must decrease monotonically"
        );
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("verification");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("convergence_eq26.csv"), table).unwrap();
}

/// Between the nodes the Petrov–Galerkin solution converges at the interpolation order
/// `p + 1` (2 for p = 1, 3 for p = 2): Eq. (26) error at the same relative position
/// `τ = 0.3` inside the element containing `t = 0.7`, on four meshes, each against its own
/// reference at that time.
#[test]
fn petrov_galerkin_error_inside_elements_converges_at_order_p_plus_1() {
    let sys = torque_system(TimeFunction::Constant);
    for (order, expected) in [(1usize, 2.0), (2, 3.0)] {
        let ns = [16usize, 32, 64, 128];
        let h: Vec<f64> = ns.iter().map(|&n| 1.0 / n as f64).collect();
        let errs: Vec<f64> = ns
            .iter()
            .map(|&n| {
                let el = (0.7 * n as f64).floor() as usize;
                let t = (el as f64 + 0.3) / n as f64;
                let (x_ref, d_ref) = constant_torque_reference_at(t);
                let traj = run(&sys, 1.0, st(order, n, 1));
                let mut q = vec![0.0; 12];
                traj.q_in_element(el, 0.3, &mut q);
                eq26(&q, &x_ref, &d_ref)
            })
            .collect();
        let s = slope(&h, &errs);
        eprintln!(
            "Petrov-Galerkin p = {order} inside elements (tau = 0.3): errors {:?}, slope {s:.2}",
            errs.iter().map(|e| format!("{e:.3e}")).collect::<Vec<_>>()
        );
        assert!(
            (s - expected).abs() < 0.3,
            "p = {order}: slope {s:.2}, expected {expected}"
        );
    }
}

/// Energy and angular-momentum drift over the element-boundary nodes of `traj` (relative).
fn drifts<S: ConstrainedSystem>(sys: &S, traj: &Trajectory) -> (f64, f64) {
    let e0 = sys.kinetic_energy(traj.v_at(0));
    let l0 = sys.angular_momentum(traj.q_at(0), traj.v_at(0));
    let l0n = (l0[0].powi(2) + l0[1].powi(2) + l0[2].powi(2)).sqrt();
    let (mut de, mut dl): (f64, f64) = (0.0, 0.0);
    for k in (0..traj.len()).step_by(traj.order) {
        de = de.max((sys.kinetic_energy(traj.v_at(k)) - e0).abs() / e0);
        let l = sys.angular_momentum(traj.q_at(k), traj.v_at(k));
        let d = ((l[0] - l0[0]).powi(2) + (l[1] - l0[1]).powi(2) + (l[2] - l0[2]).powi(2)).sqrt();
        dl = dl.max(d / l0n);
    }
    (de, dl)
}

/// Torque-free body spinning about a non-principal axis for 100 s in 50 blocks.
///
/// The Petrov–Galerkin form conserves energy and angular momentum at every element boundary
/// to the Newton tolerance's order, for p = 1 and p = 2 (Gauss collocation of the index-2
/// system, `docs/theory.md`). So does the midpoint rule with `G(q_½)`:
/// `(p₁ − p₀)·𝕄⁻¹p_½ = −λ·G(q_½)(q₁ − q₀) = −λ·(Φ(q₁) − Φ(q₀)) = 0`.
/// The paper's Bubnov form does not: its drift is a discretisation error that converges at
/// second order; this test pins that too (docs/verification.md).
#[test]
fn torque_free_body_conserves_energy_and_angular_momentum() {
    let omega = [0.3, 1.0, 0.2];
    let sys = MultibodySystem::new(vec![paper_box([0.0; 3], omega)], vec![], vec![]).unwrap();
    for order in [1usize, 2] {
        for epb in [20usize, 40] {
            let traj = run(&sys, 100.0, st(order, epb, 50));
            let (de, dl) = drifts(&sys, &traj);
            eprintln!(
                "torque-free, Petrov-Galerkin p = {order}, 50 × {epb} elements (h = {:.3}): max rel. energy drift {de:.2e}, angular momentum drift {dl:.2e}",
                2.0 / epb as f64
            );
            assert!(de < 1e-10 && dl < 1e-10, "p = {order}: drift {de:e} {dl:e}");
        }
    }
    let traj = run(
        &sys,
        100.0,
        Method::TimeStepping {
            scheme: ThetaScheme::MIDPOINT,
            step: 0.05,
        },
    );
    let (de, dl) = drifts(&sys, &traj);
    eprintln!(
        "midpoint, h = 0.05, 2000 steps: energy drift {de:.2e}, angular momentum drift {dl:.2e}"
    );
    assert!(
        de < 1e-9 && dl < 1e-9,
        "midpoint must conserve: {de:e} {dl:e}"
    );

    let mut bubnov = Vec::new();
    for epb in [20usize, 40, 80] {
        let traj = run(&sys, 100.0, st_form(1, epb, 50, Formulation::Bubnov));
        let d = drifts(&sys, &traj);
        eprintln!(
            "torque-free, Bubnov p = 1, 50 × {epb}: energy drift {:.2e}, angular momentum drift {:.2e}",
            d.0, d.1
        );
        bubnov.push(d);
    }
    let (e_rate, l_rate) = (
        (bubnov[1].0 / bubnov[2].0).log2(),
        (bubnov[1].1 / bubnov[2].1).log2(),
    );
    eprintln!("  Bubnov drift orders: energy {e_rate:.2}, angular momentum {l_rate:.2}");
    assert!(
        bubnov[0].0 > 1e-3,
        "the Bubnov form is not expected to conserve energy"
    );
    assert!(
        e_rate > 1.7 && l_rate > 1.7,
        "Bubnov drift must converge at second order: {bubnov:?}"
    );
}

/// The orthonormality constraint: exact (to the Newton tolerance) at element boundaries in
/// the Petrov–Galerkin form, and converging at order ≥ 2 inside the elements (three meshes).
#[test]
fn orthonormality_exact_at_element_boundaries_and_converges_inside() {
    let sys = torque_system(TimeFunction::Window {
        start: 0.5,
        end: 1.5,
    });
    for order in [1usize, 2] {
        let mut v = Vec::new();
        for epb in [25usize, 50, 100] {
            let traj = run(&sys, 4.0, st(order, epb, 10));
            let (at_ends, inside) = traj.constraint_violation(&sys);
            eprintln!(
                "orthonormality, p = {order}, h = {:.4}: max |Φ| at element boundaries {at_ends:.2e}, inside elements {inside:.2e}",
                0.4 / epb as f64
            );
            // Φ(q_end) − Φ(q_start) = Σ R_λ over a block, so the drift is bounded by the Newton
            // tolerance (1e-10) times the number of blocks (10).
            assert!(
                at_ends < 1e-9,
                "p = {order}: |Φ| = {at_ends:e} at element boundaries"
            );
            v.push(inside);
        }
        let rate = (v[1] / v[2]).log2();
        eprintln!("  rate inside elements: {rate:.2}");
        assert!(
            rate > 1.7,
            "constraint violation inside elements must converge at ≥ 2nd order: {v:?}"
        );
    }
}

/// The Petrov–Galerkin Jacobian is block lower bidiagonal (each element couples only to the
/// last node of its predecessor), so the discrete solution does not depend on how the elements
/// are grouped into blocks: one block of 200 elements, 10 × 20 and 200 blocks of one element
/// agree to the Newton tolerance's order. (The Bubnov form does not have this property.)
#[test]
fn petrov_galerkin_solution_is_independent_of_blocking() {
    let sys = torque_system(TimeFunction::Window {
        start: 0.5,
        end: 1.5,
    });
    for order in [1usize, 2] {
        let finals: Vec<Vec<f64>> = [(200usize, 1usize), (20, 10), (1, 200)]
            .iter()
            .map(|&(epb, blocks)| run(&sys, 4.0, st(order, epb, blocks)).q_final().to_vec())
            .collect();
        for f in &finals[1..] {
            let d = f
                .iter()
                .zip(&finals[0])
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            eprintln!("p = {order}: max difference to the single-block solution {d:.2e}");
            assert!(
                d < 1e-9,
                "p = {order}: blocking changed the solution by {d:e}"
            );
        }
    }
}

/// Conditioning of the first Newton matrix against the step size (cf. [P, Fig. 3]), box
/// spinning with ω = (0.3, 1.0, 0.2): measured slopes of log cond over log h are −2 for the
/// midpoint step and the Petrov–Galerkin elements (one element, p = 1, 2; a 10-element
/// block), and −3 for the paper's Bubnov blocks. Pinned within ±0.3 (docs/verification.md).
#[test]
fn iteration_matrix_condition_grows_like_h_to_minus_2_or_3() {
    use stmech::solve::conditioning::{ConditionCase, iteration_matrix_condition};
    let sys =
        MultibodySystem::new(vec![paper_box([5.0; 3], [0.3, 1.0, 0.2])], vec![], vec![]).unwrap();
    let (q0, v0) = sys.initial_state();
    let hs = [0.05, 0.025, 0.0125, 0.00625];
    for (case, expected) in [
        (ConditionCase::Midpoint, -2.0),
        (
            ConditionCase::PetrovGalerkin {
                order: 1,
                elements: 1,
            },
            -2.0,
        ),
        (
            ConditionCase::PetrovGalerkin {
                order: 2,
                elements: 1,
            },
            -2.0,
        ),
        (
            ConditionCase::PetrovGalerkin {
                order: 1,
                elements: 10,
            },
            -2.0,
        ),
        (
            ConditionCase::Bubnov {
                order: 1,
                elements: 10,
            },
            -3.0,
        ),
    ] {
        let c: Vec<f64> = hs
            .iter()
            .map(|&h| iteration_matrix_condition(&sys, case, 0.0, &q0, &v0, h))
            .collect();
        let s = slope(&hs, &c);
        eprintln!("{}: cond {c:?}, slope {s:.2}", case.label());
        assert!((s - expected).abs() < 0.3, "{}: slope {s:.2}", case.label());
    }
}
